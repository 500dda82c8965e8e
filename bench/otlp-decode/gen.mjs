// Generates the candidates' code from the vendored .proto files into gen/ (not committed: `node run.mjs` makes it):
// protobufjs static code with pbjs (protobufjs-cli), and @bufbuild/protobuf v2 code with buf + protoc-gen-es.
import { execFileSync } from 'node:child_process';
import protobuf from 'protobufjs';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const proto = join(here, '../../packages/otlp/proto');
const gen = join(here, 'gen');
const bin = join(here, 'node_modules/.bin');
export const ROOTS = [
  'opentelemetry/proto/collector/trace/v1/trace_service.proto',
  'opentelemetry/proto/collector/logs/v1/logs_service.proto',
  'google/rpc/status.proto',
].map((file) => join(proto, file));

export function generate() {
  if (existsSync(join(gen, 'pbjs.js')) && existsSync(join(gen, 'es'))) return;
  mkdirSync(gen, { recursive: true });
  execFileSync(join(bin, 'pbjs'), ['-t', 'static-module', '-w', 'es6', '--no-verify', '--no-convert', '--no-delimited', '--no-create', '--no-typeurl', '-p', proto, '-o', join(gen, 'pbjs.js'), ...ROOTS], { stdio: 'inherit' });
  const template = join(gen, 'buf.gen.yaml');
  writeFileSync(template, `version: v2\nplugins:\n  - local: ${join(bin, 'protoc-gen-es')}\n    out: ${join(gen, 'es')}\n    opt: [target=js, import_extension=js]\n`);
  execFileSync(join(bin, 'buf'), ['generate', proto, '--template', template], { stdio: 'inherit', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
}

/** protobufjs reflection: the .proto files loaded at run time, imports resolved against the vendored tree. */
export function loadRoot() {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (isAbsolute(target) ? target : join(proto, target));
  return root.loadSync(ROOTS.map((file) => file.slice(proto.length + 1)));
}
