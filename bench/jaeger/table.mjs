// bench/jaeger's side-by-side table (Markdown, as docs/benchmarks.md quotes it): one row a turn, then each side's
// median and the ratio Lantern / Jaeger. Node built-ins only.

const COLUMNS = [
  ['Stored spans/s', 'storedPerSecond'],
  ['Server CPU-s', 'serverCpuSeconds'],
  ['Server cores', 'serverCores'],
  ['Stored per CPU-s', 'storedPerCpuSecond'],
  ['Peak RSS MB', 'peakRssMb'],
  ['p50 ms', 'p50Ms'],
  ['p99 ms', 'p99Ms'],
  ['Failed req.', 'failures'],
  ['Generator cores', 'generatorCores'],
  ['Client cores', 'clientCores'], // generator + HTTP client: the whole load process
];

const median = (xs) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x) => (Number.isInteger(x) ? x.toLocaleString('en-US') : Number(x.toFixed(2)).toLocaleString('en-US'));

export function printTable(rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  const out = [
    line(['Side', 'Turn', ...COLUMNS.map(([title]) => title), 'Accepted', 'Stored']),
    line(['---', '---:', ...COLUMNS.map(() => '---:'), '---:', '---:']),
  ];
  for (const r of rows) {
    out.push(line([r.side, r.turn, ...COLUMNS.map(([, key]) => fmt(r[key])), fmt(r.accepted), fmt(r.stored)]));
  }
  const medians = {};
  for (const side of ['lantern', 'jaeger']) {
    const mine = rows.filter((r) => r.side === side);
    if (!mine.length) continue;
    medians[side] = Object.fromEntries(COLUMNS.map(([, key]) => [key, median(mine.map((r) => r[key]))]));
    out.push(line([`**${side} median**`, '', ...COLUMNS.map(([, key]) => fmt(medians[side][key])), '', '']));
  }
  if (medians.lantern && medians.jaeger) {
    const ratio = (key) => (medians.jaeger[key] ? `${(medians.lantern[key] / medians.jaeger[key]).toFixed(2)}x` : '-');
    out.push(line(['**Lantern / Jaeger**', '', ...COLUMNS.map(([, key]) => ratio(key)), '', '']));
  }
  const checks = rows.filter((r) => r.check).map((r) => `Jaeger turn ${r.turn}: ${r.check.wholeAfterRestart}/${r.check.sampledTraces} sampled traces whole after a restart; receiver accepted ${r.check.receiverAccepted}, refused ${r.check.receiverRefused}; exporter wrote ${r.check.exporterSent}, failed ${r.check.exporterFailed}`);
  process.stdout.write(`${out.join('\n')}\n\n${checks.join('\n')}\n`);
}
