// Part VII's one given type: the addresses of one buffer on every GPU of the
// run. rank[r] is GPU r's copy; entries past the run's GPUs are null. The
// engine passes it by value (64 bytes: room for 8 GPUs), so a kernel indexes
// it like an array and never needs to ask the driver where its peers are.
template <typename T>
struct Peers {
    T* rank[8];
};
