// GPU Puzzles in the browser, loaded on every page (small, no WebAssembly):
// - the tips of a puzzle unfold one at a time;
// - each WGSL puzzle's box becomes a playground when the reader opens it:
//   an editor holding the skeleton (or the reader's saved edits), a Check
//   button, a Stop button and a Reset button. Only then is the checker
//   loaded: the book's core compiled to WebAssembly, in a Web Worker
//   (runner/web/js/worker.js, published under playground/), so a kernel
//   that never ends cannot freeze the page.
// Edits and solved puzzles are kept in the browser's localStorage.
// - code, tables and figures scroll sideways instead of wrapping; one that
//   runs past its box shows a shadow at its right edge until scrolled to the end;
// - a printed page shows what its folds hold: they open for the print and
//   close again after it.
(() => {
  'use strict';
  const root = typeof path_to_root === 'string' ? path_to_root : '';
  const ASSETS = `${root}playground/`;
  /** The checker stops a run after 10 s; past this, the page ends the worker itself. */
  const GRACE_MS = 5000;
  const RUN_LIMIT_MS = 10000;

  const store = {
    get(k) { try { return localStorage.getItem(k); } catch { return null; } },
    set(k, v) { try { localStorage.setItem(k, v); } catch { /* private mode: nothing kept */ } },
    drop(k) { try { localStorage.removeItem(k); } catch { /* nothing kept */ } },
  };
  const key = (id, what) => `gpu-puzzles/${id}/wgsl/${what}`;

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'class') node.className = v; else node.setAttribute(k, v);
    }
    node.append(...children);
    return node;
  }

  // ---- tips, one at a time ------------------------------------------------
  function unfoldTips() {
    for (const details of document.querySelectorAll('details.puzzle-tips')) {
      const items = [...details.querySelectorAll('li')];
      if (items.length < 2) continue;
      let shown = 1;
      items.forEach((li, i) => { li.hidden = i >= shown; });
      const button = el('button', { type: 'button', class: 'puzzle-next-tip' });
      const label = () => { button.textContent = `Show tip ${shown + 1} of ${items.length}`; };
      label();
      button.addEventListener('click', () => {
        items[shown].hidden = false;
        shown += 1;
        if (shown === items.length) button.remove(); else label();
      });
      details.append(button);
    }
  }

  // ---- WGSL highlighting for the editor -------------------------------------
  // The classes are highlight.js's, so each mdBook theme colours the editor
  // as it colours the page's code.
  const WORDS = {
    keyword: 'fn let var const override if else for loop while break continue continuing return switch case default struct discard alias enable requires diagnostic',
    type: 'bool f16 f32 i32 u32 vec2 vec3 vec4 vec2f vec3f vec4f vec2u vec3u vec4u vec2i vec3i vec4i mat2x2 mat3x3 mat4x4 array atomic ptr sampler texture_2d',
    built_in: 'storage read read_write write workgroup uniform private function workgroupBarrier storageBarrier subgroupAdd subgroupShuffle subgroupBroadcast atomicAdd atomicLoad atomicStore atomicMax atomicMin arrayLength select min max clamp abs sqrt exp fma dot',
  };
  const CLASS_OF = new Map();
  for (const [cls, words] of Object.entries(WORDS)) for (const w of words.split(' ')) CLASS_OF.set(w, cls);
  const TOKEN = /(\/\/[^\n]*)|(\/\*[\s\S]*?\*\/)|(@\w+)|(\b(?:0x[0-9a-fA-F]+|\d+\.?\d*(?:e[+-]?\d+)?)[fuih]?\b)|([A-Za-z_]\w*)/g;

  function escapeHtml(text) {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  }

  function highlight(text) {
    let html = '';
    let at = 0;
    for (const m of text.matchAll(TOKEN)) {
      html += escapeHtml(text.slice(at, m.index));
      const [word] = m;
      const cls = m[1] || m[2] ? 'comment' : m[3] ? 'meta' : m[4] ? 'number' : CLASS_OF.get(word);
      html += cls ? `<span class="hljs-${cls}">${escapeHtml(word)}</span>` : escapeHtml(word);
      at = m.index + word.length;
    }
    return html + escapeHtml(text.slice(at));
  }

  /** A textarea over its own highlighted copy, with line numbers; `marked` lines stand out. */
  class Editor {
    constructor(onChange) {
      this.gutter = el('pre', { class: 'playground-gutter', 'aria-hidden': 'true' });
      this.shown = el('pre', { class: 'playground-shown hljs', 'aria-hidden': 'true' });
      this.area = el('textarea', {
        class: 'playground-text', spellcheck: 'false', autocapitalize: 'off',
        autocomplete: 'off', 'aria-label': 'Your WGSL kernel',
      });
      this.node = el('div', { class: 'playground-editor' }, this.gutter,
        el('div', { class: 'playground-layers' }, this.shown, this.area));
      this.marked = new Set();
      this.area.addEventListener('input', () => { this.draw(); onChange(this.area.value); });
      this.area.addEventListener('scroll', () => {
        this.shown.scrollTop = this.area.scrollTop;
        this.shown.scrollLeft = this.area.scrollLeft;
        this.gutter.scrollTop = this.area.scrollTop;
      });
      this.area.addEventListener('keydown', e => {
        if (e.key === 'Tab' && !e.shiftKey && !e.ctrlKey && !e.metaKey) {
          e.preventDefault();
          document.execCommand('insertText', false, '    ');
        }
      });
    }
    get text() { return this.area.value; }
    set text(value) { this.area.value = value; this.marked.clear(); this.draw(); }
    mark(lines) { this.marked = new Set(lines); this.draw(); }
    draw() {
      const lines = this.area.value.split('\n');
      this.gutter.innerHTML = lines.map((_, i) =>
        this.marked.has(i + 1) ? `<span class="playground-marked">${i + 1}</span>` : `${i + 1}`).join('\n');
      // The trailing newline keeps the copy as tall as the textarea.
      this.shown.innerHTML = `${highlight(this.area.value)}\n`;
      const rows = Math.min(Math.max(lines.length + 1, 8), 32);
      this.node.style.setProperty('--rows', rows);
    }
  }

  // ---- reports ----------------------------------------------------------------
  const VERDICT_CLASS = {
    pass: 'puzzle-pass', fail: 'puzzle-fail', compile_error: 'puzzle-compile-error',
    hang: 'puzzle-fail', bad_input: 'puzzle-fail', error: 'puzzle-error',
  };
  const WORD = {
    pass: 'PASS', fail: 'FAIL', compile_error: 'COMPILE ERROR', hang: 'HANG',
    bad_input: 'CANNOT CHECK', compiled_only: 'COMPILES', unavailable: 'UNAVAILABLE', error: 'ERROR',
  };
  const SHOWN = 32;

  /** A value as the pages and the CLI print it: `10.0`, `0.333333`, `nan`. */
  function value(v) {
    if (v === null) return '·';
    if (typeof v === 'string') return v;
    if (Number.isNaN(v)) return 'nan';
    if (Number.isInteger(v) && Math.abs(v) < 1e15) return v.toFixed(1);
    return String(Math.round(v * 1e6) / 1e6);
  }

  /** `out: [10, 11, 99, …]` over `expected:` with the wrong and unwritten
   *  elements marked, set in columns: each value padded to the width of the
   *  one it is compared with, as the pages set their results, so that a
   *  reader compares down a column; the box scrolls rather than wraps. */
  function outputLines(run) {
    const box = el('pre', { class: 'playground-outputs' });
    for (const out of run.outputs) {
      const wrong = new Set([...out.wrong, ...out.unwritten]);
      const width = Math.max(out.name.length + 1, 9);
      const shown = (values) => values.slice(0, SHOWN).map(value);
      const [got, expected] = [shown(out.got), shown(out.expected)];
      const column = i => Math.max((got[i] || '').length, (expected[i] || '').length);
      const line = (label, texts, total, marks) => {
        box.append(`${label.padEnd(width)} [`);
        texts.forEach((text, i) => {
          if (i) box.append(', ');
          const padded = text.padStart(column(i));
          box.append(marks && wrong.has(i) ? el('mark', {}, padded) : padded);
        });
        box.append(total > SHOWN ? `, … ${total} values]\n` : ']\n');
      };
      line(`${out.name}:`, got, out.got.length, true);
      line('expected:', expected, out.expected.length, false);
      // Writes past either end change no element shown: name them, marked.
      if (out.out_of_bounds && out.out_of_bounds.length) {
        box.append(`${'outside:'.padEnd(width)} `,
          el('mark', {}, out.out_of_bounds.slice(0, SHOWN).map(i => `${out.name}[${i}]`).join(', ')),
          ' written past the end of the buffer\n');
      }
    }
    return box;
  }

  /** A report headed by who made it (`who`: "The checker", "Your GPU"), so two
   *  reports of one check never read alike. */
  function renderReport(report, how, who) {
    const verdict = el('p', { class: `puzzle-verdict ${VERDICT_CLASS[report.verdict] || 'puzzle-error'}` },
      `${who}: `, el('strong', {}, WORD[report.verdict] || report.verdict), `: ${report.summary}`);
    const node = el('div', { class: 'playground-report' }, verdict, el('p', { class: 'playground-ran' }, how));
    const failed = report.runs[report.runs.length - 1];
    if (failed && failed.outputs.length && report.verdict !== 'pass') node.append(outputLines(failed));
    for (const finding of report.findings) node.append(note(finding.message));
    return node;
  }

  /** A finding as the page shows one: a sentence as prose whose `code` reads as
   *  code (text nodes, never HTML); a message of several lines as it is. */
  function note(message) {
    if (message.includes('\n')) return el('pre', { class: 'playground-findings' }, message);
    const parts = message.split('`');
    if (parts.length % 2 === 0) return el('p', { class: 'puzzle-note' }, message);
    return el('p', { class: 'puzzle-note' },
      ...parts.map((part, i) => (i % 2 ? el('code', {}, part) : part)));
  }

  /** The lines of the reader's file the report points at. */
  function linesOf(report) {
    return report.findings.filter(f => f.line && (f.kind === 'compile_error' || f.kind === 'hazard'))
      .map(f => f.line);
  }

  function ms(x) {
    return x >= 100 ? `${Math.round(x)} ms` : `${x.toPrecision(2)} ms`;
  }

  /** Why the reader's GPU and the checker disagree, when they do. */
  function disagreement(checker, gpu) {
    if (gpu.verdict !== 'pass' || checker.verdict === 'pass') return null;
    const said = checker.findings.map(f => f.message).join(' ');
    const why = /race/i.test(said)
      ? 'A race gives the right answer whenever the threads happen to run in a lucky order, and this GPU\'s order was lucky this time. The checker runs invocations in an order no GPU promises to avoid, and sees two of them touch one element with nothing ordering them.'
      : /out of bounds|outside/i.test(said)
        ? 'WebGPU clamps an index past the end of a buffer back into it, so a missing guard can pass on a GPU in a browser. The checker sees the index itself.'
        : /uninitiali[sz]ed|never wrote|nobody wrote/i.test(said)
          ? 'A read of memory nobody wrote gets whatever was there; on this GPU that happened to be harmless. The checker tracks every element and sees the read.'
          : /barrier|uniform/i.test(said)
            ? 'A barrier that only some invocations reach is undefined behaviour: this GPU happened to get through it. The checker requires every invocation of the workgroup to reach it.'
            : 'The checker sees every access, and this GPU does not report what it did not notice.';
    return el('p', { class: 'playground-differ' },
      el('strong', {}, 'Your GPU passed it; the checker did not. '), why,
      ' The verdict that counts is the checker\'s: the kernel is not correct yet.');
  }

  // ---- one playground -----------------------------------------------------------
  class Playground {
    constructor(box, id, bundle) {
      this.box = box;
      this.id = id;
      this.bundle = bundle;
      this.worker = null;
      this.start = null;
      this.timer = null;
      this.editor = new Editor(text => store.set(key(id, 'text'), text));
      this.check = el('button', { type: 'button', class: 'playground-check' }, 'Check');
      this.stop = el('button', { type: 'button', class: 'playground-stop', disabled: '' }, 'Stop');
      this.reset = el('button', { type: 'button', class: 'playground-reset' }, 'Reset to the skeleton');
      this.drawButton = el('button', { type: 'button', class: 'playground-draw' }, 'Draw who touched what');
      this.status = el('p', { class: 'playground-status', role: 'status' }, 'Loading the checker…');
      this.results = el('div', { class: 'playground-results', 'aria-live': 'polite' });
      this.check.disabled = true;
      this.drawButton.disabled = true;
      box.append(el('div', { class: 'playground-body' }, this.editor.node,
        el('div', { class: 'playground-buttons' }, this.check, this.stop, this.drawButton, this.reset),
        this.status, this.results));
      this.check.addEventListener('click', () => this.run());
      this.drawButton.addEventListener('click', () => this.run('draw'));
      this.stop.addEventListener('click', () => this.halt('Stopped. Nothing was judged.'));
      this.reset.addEventListener('click', () => {
        if (!this.start) return;
        store.drop(key(id, 'text'));
        store.drop(key(id, 'solved'));
        this.editor.text = this.start.text;
        this.results.replaceChildren();
        showSolved(box, id);
        this.status.textContent = `Back to the ${this.start.given_with_bug ? 'kernel as given' : 'skeleton'}.`;
      });
      this.open();
    }

    async open() {
      if (!(await checkerHere())) {
        this.status.replaceChildren(...withoutChecker(this.id));
        return;
      }
      this.spawn();
    }

    spawn() {
      this.worker = new Worker(`${ASSETS}worker.js`, { type: 'module' });
      this.worker.onmessage = ({ data }) => this.heard(data);
      this.worker.onerror = e => this.broken(e.message || 'the checker failed to start');
      this.worker.postMessage({ kind: 'open', bundle: this.bundle });
    }

    broken(message) {
      this.clearTimer();
      this.status.textContent = `The checker could not run here: ${message}`;
      this.check.disabled = true;
      this.drawButton.disabled = true;
      this.stop.disabled = true;
    }

    heard(data) {
      if (data.kind === 'broken') return this.broken(data.message);
      if (data.kind === 'opened') {
        const first = !this.start;
        this.start = data.start;
        if (first) {
          const saved = store.get(key(this.id, 'text'));
          this.editor.text = saved !== null ? saved : data.start.text;
          const sizes = data.start.sizes;
          this.status.textContent = `Ready: ${data.start.file}, checked at ${sizes.join(', then ')}${data.start.hint ? ` (the gap: ${data.start.hint})` : ''}.`;
        }
        this.check.disabled = false;
        this.drawButton.disabled = false;
        if (this.pending) { const [text, kind] = this.pending; this.pending = null; this.send(text, kind); }
        return;
      }
      if (data.kind === 'drawn') {
        const picture = data.svg
          ? el('div', { class: 'puzzle-diagram playground-drawn' })
          : el('p', { class: 'puzzle-diagram-note playground-drawn' }, data.error);
        if (data.svg) picture.innerHTML = data.svg;
        const title = 'Who read and wrote which element, as the CPU checker traced your kernel at the teaching size (invocations numbered in their launch)';
        if (data.after) {
          // Under the checker's report, folded: the GPU's report may follow.
          const fold = el('details', { class: 'playground-drawing' }, el('summary', {}, title), picture);
          fold.open = !!data.svg && this.checker && this.checker.verdict !== 'pass';
          const report = this.results.querySelector('.playground-report');
          if (report) report.after(fold); else this.results.append(fold);
          return undefined;
        }
        this.results.replaceChildren(el('p', { class: 'puzzle-diagram-note' }, `${title}:`), picture);
        return this.done();
      }
      if (data.kind === 'crashed') {
        this.halt(`The checker itself failed (${data.message}): a bug in the book's checker, not in your kernel. Check again, or use \`runner check ${this.id} --lang wgsl\`.`, 'ERROR');
        return undefined;
      }
      if (data.kind === 'teaching') {
        this.box.dataset.teachingMs = (performance.now() - this.started).toFixed(1);
        const rest = this.start.sizes.slice(1).join(', ');
        this.status.textContent = `Passes at the teaching size (${ms(data.ms)}); now the stress sizes: ${rest}…`;
        return undefined;
      }
      if (data.kind === 'checked') {
        this.checker = data.report;
        // From pressing Check to the checker's verdict (read by the playground benchmark).
        this.box.dataset.verdictMs = (performance.now() - this.started).toFixed(1);
        if (!this.box.dataset.teachingMs) this.box.dataset.teachingMs = this.box.dataset.verdictMs;
        this.editor.mark(linesOf(data.report));
        const how = `Checked in this tab by the CPU checker, compiled to WebAssembly, in ${ms(data.ms)}; it sees races, out-of-bounds indices, uninitialized reads and barriers not every invocation reaches.`;
        this.results.replaceChildren(renderReport(data.report, how, 'The checker'));
        markScrolling();
        if (data.report.verdict === 'pass') {
          store.set(key(this.id, 'solved'), new Date().toISOString().slice(0, 10));
        }
        showSolved(this.box, this.id, data.report.verdict === 'pass');
        if (!this.expectGpu || ['hang', 'compile_error', 'bad_input'].includes(data.report.verdict)) {
          if (this.expectGpu) this.results.append(el('p', { class: 'playground-gpu-note' },
            'Not sent to your GPU: WebGPU cannot stop a kernel that never ends, and one that does not compile or read has nothing to run.'));
          return this.done();
        }
        this.status.textContent = 'The checker is done; now running it on your GPU (WebGPU)…';
        this.arm(RUN_LIMIT_MS + GRACE_MS, 'Your GPU did not answer in time; the page stopped waiting.');
        return;
      }
      if (data.kind === 'gpu') {
        const section = el('div', { class: 'playground-gpu' });
        if (data.skipped) {
          section.append(el('p', { class: 'playground-gpu-note' }, data.skipped));
        } else {
          const timing = this.timing(data.timing);
          const how = `Run on your ${data.cpu ? 'adapter' : 'GPU'}, ${data.device}, through WebGPU, with the same buffers, poison and guard bands${timing ? `; ${timing}` : ''}.${data.cpu ? ' This adapter runs on the CPU, so its times measure a CPU.' : ''}`;
          section.append(renderReport(data.report, how, 'Your GPU'));
          markScrolling();
          const differ = disagreement(this.checker, data.report);
          if (differ) section.append(differ);
        }
        this.results.append(section);
        return this.done();
      }
      return undefined;
    }

    timing(timing) {
      if (!timing) return null;
      return `the teaching size took ${ms(timing.median_ms)} (median of ${timing.samples}, ${ms(timing.min_ms)} to ${ms(timing.max_ms)}, timestamp queries)`;
    }

    send(text, kind = 'check') {
      if (kind === 'draw') {
        this.worker.postMessage({ kind: 'draw', text });
        this.arm(RUN_LIMIT_MS + GRACE_MS, 'Stopped: the kernel did not finish, so there is nothing to draw.');
        return;
      }
      this.expectGpu = 'gpu' in navigator;
      this.worker.postMessage({ kind: 'check', text, gpu: this.expectGpu });
      const limit = RUN_LIMIT_MS * Math.max(1, this.start.sizes.length) + GRACE_MS;
      this.arm(limit, `Stopped after ${limit / 1000} s without an answer: the kernel did not finish. Look for a loop whose condition never becomes false.`);
    }

    run(kind = 'check') {
      this.check.disabled = true;
      this.drawButton.disabled = true;
      this.stop.disabled = false;
      this.results.replaceChildren();
      this.editor.mark([]);
      this.status.textContent = kind === 'draw'
        ? 'Tracing your kernel at the teaching size…'
        : `Checking at ${this.start.sizes.join(', then ')}…`;
      this.started = performance.now();
      delete this.box.dataset.teachingMs;
      delete this.box.dataset.verdictMs;
      if (this.worker) this.send(this.editor.text, kind);
      else { this.pending = [this.editor.text, kind]; this.spawn(); }
    }

    arm(limit, message) {
      this.clearTimer();
      this.timer = setTimeout(() => this.halt(message), limit);
    }

    clearTimer() {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
    }

    /** Ends the worker (a kernel that never ends goes with it); the next check starts another. */
    halt(message, word = 'STOPPED') {
      this.clearTimer();
      if (this.worker) this.worker.terminate();
      this.worker = null;
      this.status.textContent = message;
      this.results.append(el('p', { class: 'puzzle-verdict puzzle-fail playground-stopped' },
        el('strong', {}, word), `: ${message}`));
      showSolved(this.box, this.id, false);
      this.check.disabled = false;
      this.drawButton.disabled = false;
      this.stop.disabled = true;
    }

    done() {
      this.clearTimer();
      this.check.disabled = false;
      this.drawButton.disabled = false;
      this.stop.disabled = true;
      this.status.textContent = `Done in ${ms(performance.now() - this.started)}.`;
    }
  }

  /** The puzzle's mark: solved in this browser once, and, when the kernel
   *  just checked did not pass (`passes` false), that this one does not. */
  function showSolved(box, id, passes) {
    const mark = box.querySelector('.playground-solved');
    const when = store.get(key(id, 'solved'));
    box.classList.toggle('playground-is-solved', !!when && passes !== false);
    if (!mark) return;
    if (!when) mark.textContent = '';
    else if (passes === false) mark.textContent = `Solved in this browser on ${when}; the kernel now in the editor does not pass`;
    else mark.textContent = `✔ Solved in this browser on ${when}`;
  }

  /** Whether this build of the book carries the checker: a plain `mdbook
   *  build` does not, and `bash .ci/publish`, which adds it under playground/,
   *  sets this to true in the site it builds. Known without a request, so a
   *  build without it logs no failed load. */
  const CHECKER_PUBLISHED = false;
  function checkerHere() {
    return Promise.resolve(CHECKER_PUBLISHED);
  }

  /** What a page without the checker says instead of a playground. */
  function withoutChecker(id) {
    return ['This copy of the book has no in-page checker; the published book has one. ',
      'Check your WGSL kernel from a clone of the book with ',
      el('code', {}, `runner check ${id} --lang wgsl`), '.'];
  }

  async function setUp(box) {
    const id = box.dataset.puzzle;
    const bundle = box.querySelector('script.puzzle-bundle');
    if (!id || !bundle) return;
    const off = box.querySelector('.puzzle-playground-off');
    if (!(await checkerHere())) {
      // No button that would open an editor with nothing behind it.
      if (off) off.replaceChildren(...withoutChecker(id));
      return;
    }
    if (off) off.remove();
    const open = el('button', { type: 'button', class: 'playground-open' },
      'Open the playground: check your WGSL kernel in this page');
    box.append(el('div', { class: 'playground-head' }, open, el('span', { class: 'playground-solved' })));
    showSolved(box, id);
    open.addEventListener('click', () => {
      open.remove();
      box.playground = new Playground(box, id, bundle.textContent);
    });
  }

  // ---- a cue where code, a table or a figure runs past its box ---------------
  const SCROLLERS = 'pre > code, .puzzle-table, .table-wrapper, .puzzle-diagram, .book-figure, .playground-outputs';
  function markScrolling() {
    for (const box of document.querySelectorAll(SCROLLERS)) {
      const more = box.scrollWidth > box.clientWidth + 1
        && box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
      box.classList.toggle('has-more', more);
    }
  }
  // Opening a <details> (a solution, a recorded run) lays out what it hid.
  window.bookMarkScrolling = markScrolling;

  // ---- print: every fold open on paper, as the reader left them after --------
  // Paper cannot be clicked, and a closed <details> prints as its summary
  // alone. The tips hidden one at a time are shown by the print styles.
  function openFoldsForPrint() {
    let opened = [];
    window.addEventListener('beforeprint', () => {
      opened = [...document.querySelectorAll('details:not([open])')];
      opened.forEach(d => { d.open = true; });
    });
    window.addEventListener('afterprint', () => {
      opened.forEach(d => { d.open = false; });
      opened = [];
    });
  }

  function main() {
    unfoldTips();
    openFoldsForPrint();
    document.querySelectorAll('.puzzle-playground').forEach(setUp);
    markScrolling();
    window.addEventListener('resize', markScrolling);
    // Once a frame: a print opens hundreds of folds at once.
    let marking = false;
    document.addEventListener('toggle', () => {
      if (marking) return;
      marking = true;
      requestAnimationFrame(() => { marking = false; markScrolling(); });
    }, true);
    document.addEventListener('scroll', e => {
      if (e.target instanceof Element && e.target.matches(SCROLLERS)) markScrolling();
    }, true);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', main);
  else main();
})();
