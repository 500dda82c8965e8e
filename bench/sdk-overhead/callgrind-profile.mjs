// Reads a callgrind dump (callgrind.out format, the `Ir` event only) into self cost per function and per
// category, for callgrind.mjs. What callgrind_annotate prints, minus its options, plus the grouping below.
// Format: `fn=(id) name` names a function the first time and `fn=(id)` later (string compression); a cost line is
// `<position> <Ir>`; the cost line right after a `calls=` line is the callee's inclusive cost, not self cost.
import { readFileSync } from 'node:fs';

/**
 * Where an instruction ran, by the function's name. JIT-compiled JavaScript has no symbol (callgrind names it by
 * address); V8's builtins (the interpreter, inline caches, Promise and Array code…) are symbols of the node binary.
 * The patterns follow V8 11-13 / Node 20-24 symbol names; anything unmatched is `node/v8 (other C++)`.
 */
export const COMPILERS = 'JIT compilers (TurboFan, Maglev, Sparkplug)';
const CATEGORIES = [
  ['JIT code (optimised/baseline JS)', (fn) => /^0x[0-9a-f]+$/.test(fn)],
  ['GC', (fn) => /v8::internal::(Heap|Scavenge|Scavenger|MarkCompact|MinorMarkCompact|Mark|Marking|Sweeper|ConcurrentMarking|IncrementalMarking|MemoryAllocator|PagedSpace|NewSpace|SemiSpace|LargeObjectSpace|MainAllocator|EvacuateVisitor|Evacuat|RememberedSet|SlotSet|PointersUpdating|IterateAndScavenge|BodyDescriptorBase::Iterate|GCTracer|LocalHeap|Safepoint|ArrayBufferSweeper)/.test(fn) || /Scavenge|Evacuat|Marking|Sweep/.test(fn)],
  [COMPILERS, (fn) => /v8::internal::(compiler|maglev|baseline|Compiler|OptimizingCompile|turboshaft)/.test(fn) || /^(v8::internal::)?(Zone|zone)/.test(fn)],
  ['V8 builtins (interpreter, ICs, runtime stubs)', (fn) => /^Builtins_/.test(fn)],
  ['V8 runtime / IC miss handlers (C++)', (fn) => /v8::internal::(Runtime_|LoadIC|StoreIC|KeyedLoadIC|KeyedStoreIC|IC::|LookupIterator|JSObject::|Map::|DescriptorArray|TransitionsAccessor|FieldIndex|Object::|JSReceiver|FeedbackNexus|FeedbackVector)/.test(fn)],
  ['zlib', (fn) => /^(deflate|inflate|longest_match|fill_window|compress_block|send_tree|build_tree|gen_bitlen|pqdownheap|_tr_|crc32|adler32|Cr_z_|cr_z_|zcalloc|zcfree|updatewindow|inflate_fast|slide_hash|read_buf)/i.test(fn) || /node::(crypto::)?.*(Zlib|zlib|CompressionStream)/.test(fn)],
  ['OpenSSL / crypto', (fn) => /^(RAND_|CRYPTO_|EVP_|ossl_|OPENSSL_|sha|SHA|aes|AES|ChaCha|chacha|drbg|rand_)/.test(fn) || /node::crypto::/.test(fn)],
  ['libuv / syscalls', (fn) => /^(uv_|uv__|epoll|__libc|__GI_|read$|write$|writev$|__write|__read|syscall)/.test(fn)],
  ['libc / allocator', (fn) => /^(malloc|free|calloc|realloc|_int_malloc|_int_free|memcpy|memmove|memset|__mem|__str|str|operator new|operator delete|tcache|unlink_chunk|malloc_consolidate|_dl_|__tls)/.test(fn)],
];
export const categoryOf = (fn) => CATEGORIES.find(([, test]) => test(fn))?.[0] ?? 'node/v8 (other C++)';

/** Self Ir per function name (across objects) and the file's total, from one dump. */
export function readDump(file) {
  const text = readFileSync(file, 'utf8');
  const names = new Map(); // "fn" id -> name
  const self = new Map();
  let fn = '';
  let afterCalls = false;
  let totals = 0;
  const nameOf = (value) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(value);
    if (!m) return value;
    if (m[2] !== undefined) names.set(m[1], m[2]);
    return names.get(m[1]) ?? value;
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) {
      fn = nameOf(line.slice(3));
    } else if (line.startsWith('cfn=') || line.startsWith('cfni=')) {
      nameOf(line.slice(line.indexOf('=') + 1)); // registers the id
    } else if (line.startsWith('calls=')) {
      afterCalls = true;
    } else if (/^[0-9+*-]/.test(line)) {
      const ir = Number(line.split(' ')[1] ?? 0);
      if (afterCalls) afterCalls = false;
      else self.set(fn, (self.get(fn) ?? 0) + ir);
    } else if (line.startsWith('totals:') || line.startsWith('summary:')) {
      totals = Number(line.split(/\s+/)[1]);
    }
  }
  return { totals, self };
}

/** Self Ir per request by category, and the top functions, of one dump. */
export function profileOf(file, requests, top = 25) {
  const { totals, self } = readDump(file);
  const byCategory = {};
  for (const [fn, ir] of self) {
    const c = categoryOf(fn);
    byCategory[c] = (byCategory[c] ?? 0) + ir;
  }
  const perRequest = (ir) => Math.round(ir / requests);
  return {
    file,
    totalIrPerRequest: perRequest(totals),
    byCategory: Object.fromEntries(Object.entries(byCategory).sort((a, b) => b[1] - a[1]).map(([c, ir]) => [c, perRequest(ir)])),
    selfPerRequest: new Map([...self].map(([fn, ir]) => [fn, ir / requests])),
    topSelf: [...self].sort((a, b) => b[1] - a[1]).slice(0, top).map(([fn, ir]) => ({ fn, irPerRequest: perRequest(ir) })),
  };
}

/** Functions (JIT code pooled into one line) whose self Ir per request grew most from `base` to `p`. */
export function growthOver(base, p, top = 25) {
  const pool = (m) => {
    const out = new Map();
    for (const [fn, ir] of m) {
      const key = /^0x[0-9a-f]+$/.test(fn) ? '(JIT code, all addresses)' : fn;
      out.set(key, (out.get(key) ?? 0) + ir);
    }
    return out;
  };
  const a = pool(base.selfPerRequest);
  const b = pool(p.selfPerRequest);
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys]
    .map((fn) => ({ fn, irPerRequest: Math.round((b.get(fn) ?? 0) - (a.get(fn) ?? 0)) }))
    .sort((x, y) => y.irPerRequest - x.irPerRequest)
    .slice(0, top);
}
