//! Messages between the engine and its child processes: a JSON header and
//! binary attachments (the contents of buffers), so gigabytes of data never
//! pass through JSON.
//!
//! A message on the pipe is: the marker [`MARK`], the header's length (u64,
//! little-endian) and its JSON, the number of attachments (u32), then each
//! attachment's length (u64) and bytes. A reader skips anything before a
//! marker: a driver that prints to stdout cannot derail the conversation.

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::io::{self, Read, Write};

/// Starts every message.
pub const MARK: &[u8; 8] = b"GPZ-MSG1";

/// A header and its attachments.
#[derive(Debug)]
pub struct Message<H> {
    pub header: H,
    pub blobs: Vec<Vec<u8>>,
    /// What the child printed to stdout before this message: a kernel's
    /// `printf` on a GPU (the driver writes it there), or a library's chatter.
    pub before: Vec<u8>,
}

/// Writes one message and flushes it.
pub fn write<H: Serialize>(w: &mut impl Write, header: &H, blobs: &[&[u8]]) -> io::Result<()> {
    let json = serde_json::to_vec(header).map_err(io::Error::other)?;
    w.write_all(MARK)?;
    w.write_all(&(json.len() as u64).to_le_bytes())?;
    w.write_all(&json)?;
    w.write_all(&(blobs.len() as u32).to_le_bytes())?;
    for blob in blobs {
        w.write_all(&(blob.len() as u64).to_le_bytes())?;
        w.write_all(blob)?;
    }
    w.flush()
}

/// Reads the next message; `Ok(None)` at the end of the stream.
pub fn read<H: DeserializeOwned>(r: &mut impl Read) -> io::Result<Option<Message<H>>> {
    // Find the marker, keeping aside anything printed before it.
    let mut matched = 0;
    let mut byte = [0u8; 1];
    let mut before = Vec::new();
    while matched < MARK.len() {
        if r.read(&mut byte)? == 0 {
            return Ok(None);
        }
        if byte[0] == MARK[matched] {
            matched += 1;
            continue;
        }
        before.extend_from_slice(&MARK[..matched]);
        matched = usize::from(byte[0] == MARK[0]);
        if matched == 0 {
            before.push(byte[0]);
        }
    }
    let header_len = read_u64(r)? as usize;
    let mut json = vec![0u8; header_len];
    r.read_exact(&mut json)?;
    let header = serde_json::from_slice(&json).map_err(io::Error::other)?;
    let mut count = [0u8; 4];
    r.read_exact(&mut count)?;
    let mut blobs = Vec::with_capacity(u32::from_le_bytes(count) as usize);
    for _ in 0..u32::from_le_bytes(count) {
        let len = read_u64(r)? as usize;
        let mut blob = vec![0u8; len];
        r.read_exact(&mut blob)?;
        blobs.push(blob);
    }
    Ok(Some(Message {
        header,
        blobs,
        before,
    }))
}

fn read_u64(r: &mut impl Read) -> io::Result<u64> {
    let mut bytes = [0u8; 8];
    r.read_exact(&mut bytes)?;
    Ok(u64::from_le_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_survive_noise_and_come_back_whole() {
        let mut pipe = Vec::new();
        pipe.extend_from_slice(b"a driver printed this\n");
        write(&mut pipe, &("first", 1), &[b"abc", b""]).unwrap();
        pipe.extend_from_slice(b"GPZ-noise");
        write(&mut pipe, &vec![2.5f64], &[&[7u8; 100_000]]).unwrap();
        let mut r = pipe.as_slice();
        let one: Message<(String, u32)> = read(&mut r).unwrap().unwrap();
        assert_eq!(one.header, ("first".to_string(), 1));
        assert_eq!(one.before, b"a driver printed this\n");
        assert_eq!(one.blobs, [b"abc".to_vec(), vec![]]);
        let two: Message<Vec<f64>> = read(&mut r).unwrap().unwrap();
        assert_eq!(
            two.before, b"GPZ-noise",
            "a marker's start that leads nowhere is kept"
        );
        assert_eq!(two.header, [2.5]);
        assert_eq!(two.blobs[0].len(), 100_000);
        assert!(
            read::<u32>(&mut r).unwrap().is_none(),
            "the end of the stream"
        );
    }
}
