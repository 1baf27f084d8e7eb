/**
 * No Docker engine runs here, so check what can be checked without one: the Dockerfile's shape, and that the
 * compose and Kubernetes examples parse and agree with the code (port, probe routes, config keys).
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config/load.js';

const root = new URL('../../', import.meta.url).pathname;
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

/** Dockerfile instructions of the final stage, with line continuations joined. */
function finalStage(text: string): { op: string; args: string }[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages: { op: string; args: string }[][] = [];
  for (const line of lines) {
    const [op = '', ...rest] = line.split(/\s+/);
    if (op.toUpperCase() === 'FROM') stages.push([]);
    stages.at(-1)?.push({ op: op.toUpperCase(), args: rest.join(' ') });
  }
  return stages.at(-1) ?? [];
}

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const stage = finalStage(text);
  const find = (op: string) => stage.filter((i) => i.op === op);

  it('is multi-stage and ships production dependencies only', () => {
    expect(text.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/npm prune --omit=dev|npm ci --omit=dev/);
  });

  it('runs as a non-root user', () => {
    const user = find('USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
  });

  it('uses exec form for ENTRYPOINT and CMD, and the default config path', () => {
    const entry = JSON.parse(find('ENTRYPOINT').at(-1)!.args) as string[];
    const cmd = JSON.parse(find('CMD').at(-1)!.args) as string[];
    expect(entry).toEqual(['node', 'dist/cli.js']);
    expect(cmd).toEqual(['--config', '/etc/mcp-retrofit/config.yaml', '--host', '0.0.0.0', '--port', '8080']);
    expect(find('EXPOSE').at(-1)?.args).toBe('8080');
  });

  it('has a HEALTHCHECK on /healthz of the exposed port', () => {
    const health = find('HEALTHCHECK').at(-1)?.args ?? '';
    expect(health).toContain('CMD [');
    expect(health).toContain('http://127.0.0.1:8080/healthz');
  });

  it('copies only paths that exist', () => {
    for (const match of text.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)) {
      for (const src of match[1]!.split(/\s+/)) expect(() => readFileSync(join(root, src)), src).not.toThrow(/ENOENT/);
    }
  });
});

describe('compose and Kubernetes examples', () => {
  it('compose mounts the example config at the default path and maps port 8080', () => {
    const compose = parse(read('docker/compose.yaml')) as { services: Record<string, { ports?: string[]; volumes?: string[] }> };
    const gateway = compose.services['mcp-retrofit']!;
    expect(gateway.ports).toContain('8080:8080');
    expect(gateway.volumes).toContain('./config.yaml:/etc/mcp-retrofit/config.yaml:ro');
  });

  it('the compose config is valid and listens on 8080', async () => {
    const loaded = await loadConfig(join(root, 'docker/config.yaml'));
    expect(loaded.config.listen.port).toBe(8080);
    expect(Object.keys(loaded.config.upstreams)).toEqual(['everything']);
  });

  it('the Kubernetes sidecar probes the gateway routes and its ConfigMap config is valid', async () => {
    const docs = parseAllDocuments(read('docker/kubernetes/deployment.yaml')).map((d) => d.toJS() as Record<string, never>);
    const configMap = docs.find((d) => d['kind'] === 'ConfigMap') as unknown as { data: Record<string, string> };
    const deployment = docs.find((d) => d['kind'] === 'Deployment') as unknown as {
      spec: { template: { spec: { containers: { name: string; args?: string[]; ports?: { containerPort: number }[]; readinessProbe?: { httpGet: { path: string } }; livenessProbe?: { httpGet: { path: string } } }[] } } };
    };
    const sidecar = deployment.spec.template.spec.containers.find((c) => c.name === 'mcp-retrofit')!;
    expect(sidecar.readinessProbe?.httpGet.path).toBe('/readyz');
    expect(sidecar.livenessProbe?.httpGet.path).toBe('/healthz');
    expect(sidecar.ports?.[0]?.containerPort).toBe(8080);
    expect(sidecar.args).toEqual(['--config', '/etc/mcp-retrofit/config.yaml', '--host', '0.0.0.0', '--port', '8080']);

    const dir = mkdtempSync(join(tmpdir(), 'retrofit-k8s-'));
    try {
      const file = join(dir, 'config.yaml');
      writeFileSync(file, configMap.data['config.yaml']!);
      const loaded = await loadConfig(file);
      expect(loaded.config.listen.port).toBe(8080);
      expect(loaded.config.upstreams['everything']?.path).toBe('/everything/mcp');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
