import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/metrics.js';
import { SessionFacts } from '../../../src/session/sessions.js';

describe('SessionFacts', () => {
  it('remembers a session revision until forgotten, and keeps the sessions gauge right', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const facts = new SessionFacts({ metrics, maxSessions: 2 });
    facts.rememberRevision('u', 's1', '2025-06-18');
    facts.rememberRevision('u', 's1', '2025-11-25');
    facts.rememberRevision('u', 's2', '2025-03-26');
    expect(facts.revisionOf('u', 's1')).toBe('2025-11-25');
    expect(facts.revisionOf('v', 's1')).toBeUndefined();
    expect(facts.revisionOf('u', undefined)).toBeUndefined();
    const gauge = async () => (await metrics.sessions.get()).values.find((v) => v.labels.upstream === 'u')?.value;
    expect(await gauge()).toBe(2);
    // s1 was just read, so s2 is the least recently used and makes room for s3.
    facts.rememberRevision('u', 's3', '2025-06-18');
    expect(facts.revisionOf('u', 's2')).toBeUndefined();
    expect(await gauge()).toBe(2);
    facts.forget('u', 's1');
    expect(facts.revisionOf('u', 's1')).toBeUndefined();
    expect(await gauge()).toBe(1);
  });

  it('remembers which tool created a task, per upstream and session', () => {
    const facts = new SessionFacts();
    facts.rememberTask('u', 's', 'task-1', 'slow_tool');
    expect(facts.toolOfTask('u', 's', 'task-1')).toBe('slow_tool');
    expect(facts.toolOfTask('u', 'other', 'task-1')).toBeUndefined();
    expect(facts.toolOfTask('u', 's', 'task-2')).toBeUndefined();
  });
});
