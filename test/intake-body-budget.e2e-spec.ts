import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import { TestApp } from './support/test-app.js';

/**
 * Large bodies (docs/DECISIONS.md, "Memory"): parsed and evaluated within a byte budget of 8 MiB
 * (bodies up to 64 KiB never wait), parsed in groups of elements unless the API log needs the text.
 * Every call is answered, whatever mix of sizes and failures; small calls pass while large ones queue.
 */
describe('Intake of large bodies (e2e)', () => {
  let t: TestApp;
  let token: { id: string; secret: string };

  beforeAll(async () => {
    t = await TestApp.start();
    token = await t.createToken('budget');
    await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'zipkin-tracing' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (raw: string | Buffer, headers: Record<string, string> = {}) =>
    t.call('POST', '/v1/trace', { auth: token.secret, headers: { 'content-type': 'application/json', ...headers }, rawBody: raw });

  /** An array of unmatched spans of at most `bytes` bytes. */
  const spans = (bytes: number, tag: string) => {
    const items: string[] = [];
    for (let size = 2; ; ) {
      const one = JSON.stringify({ traceId: `${tag}-${items.length}`, id: 'span', name: 'checkout', timestamp: 1732262400000000, duration: 1200, status: 'queued' });
      if (size + one.length + 1 > bytes) break;
      items.push(one);
      size += one.length + 1;
    }
    return { text: `[${items.join(',')}]`, count: items.length };
  };

  it('answers many large bodies sent at once, each with its own outcomes', async () => {
    const bodies = Array.from({ length: 6 }, (_, i) => spans(3 * 1024 * 1024, `many-${i}`));
    const answers = await Promise.all(bodies.map((b) => post(b.text)));
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(202);
      expect(answer.body.received).toBe(bodies[i].count);
      expect(answer.body.payloads.every((p: { filters: { action: string }[] }) => p.filters[0].action === 'unmatched')).toBe(true);
    });
  });

  it('answers a small call while large ones queue', async () => {
    const big = spans(4 * 1024 * 1024, 'queue');
    const done: string[] = [];
    const large = Array.from({ length: 5 }, (_, i) => post(big.text).then((r) => (done.push(`large-${i}`), r)));
    // Sent once the large bodies are on their way; it needs no budget, so it must not wait for all of them.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const small = await post(JSON.stringify({ traceId: 'small-1', name: 'checkout', status: 'queued' }));
    done.push('small');
    expect(small).toMatchObject({ status: 202 }); // on failure, prints the answer's body (its code)
    const answers = await Promise.all(large);
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    expect(done.indexOf('small')).toBeLessThan(done.length - 1);
  });

  it('gives the budget back on every rejection after admission: a large body still passes afterwards', async () => {
    const MiB = 1024 * 1024;
    const valid = spans(MiB, 'rejected').text;
    const rejections: Array<[string | Buffer, Record<string, string>, number, string]> = [
      [valid.slice(0, -1), {}, 400, 'JSON_INVALID'],
      [`${valid.slice(0, -1)},7]`, {}, 400, 'BODY_NOT_OBJECTS'],
      [Buffer.concat([Buffer.from(valid.slice(0, -2)), Buffer.from([0xff, 0x7d, 0x5d])]), {}, 400, 'BODY_NOT_UTF8'],
      [' '.repeat(MiB), {}, 400, 'BODY_EMPTY'],
      [`${'['.repeat(300)}${' '.repeat(MiB)}${']'.repeat(300)}`, {}, 400, 'BODY_TOO_DEEP'],
      [gzipSync(valid.slice(0, -1)), { 'content-encoding': 'gzip' }, 400, 'JSON_INVALID'],
    ];
    // 6 kinds × 3 MiB-ish each time round, well past the 8 MiB budget if any of them kept its share.
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(rejections.map(([raw, headers]) => post(raw, headers)));
      answers.forEach((answer, i) => {
        expect(answer.status).toBe(rejections[i][2]);
        expect(answer.body.code).toBe(rejections[i][3]);
      });
    }
    // A reused Idempotency-Key with another body is refused after admission too.
    const key = 'budget-key-1';
    expect((await post(valid, { 'idempotency-key': key })).status).toBe(202);
    for (let i = 0; i < 10; i++) {
      const reused = await post(spans(MiB, `reuse-${i}`).text, { 'idempotency-key': key });
      expect(reused.status).toBe(422);
    }
    const large = spans(5 * MiB - 1024, 'after');
    const answer = await post(large.text);
    expect(answer.status).toBe(202);
    expect(answer.body.received).toBe(large.count);
  });

  it('logs the whole text of a large body for a token in debug mode, and answers it like any other', async () => {
    const loud = await t.createToken('budget-debug', { debug: true });
    await t.call('POST', '/api/filters', { body: { tokenId: loud.id, template: 'zipkin-tracing' } });
    const big = spans(2 * 1024 * 1024, 'logged');
    const text = `${big.text.slice(0, -1)},{"traceId":"logged-id","id":12345678901234567890,"status":"queued"}]`;
    const answer = await t.call('POST', '/v1/trace', { auth: loud.secret, headers: { 'content-type': 'application/json' }, rawBody: text });
    expect(answer.status).toBe(202);
    expect(answer.body.received).toBe(big.count + 1);
    const { rows } = await t.db.query('select body_kind, body::text as body from api_log where token_id = $1', [loud.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].body_kind).toBe('json');
    expect(rows[0].body).toBe(text); // the text as received, every digit kept
  });

  it('measures a compressed body by its decompressed size', async () => {
    const big = spans(5 * 1024 * 1024 - 1024, 'gzip');
    const zipped = gzipSync(big.text);
    expect(zipped.length).toBeLessThan(big.text.length / 20); // small as sent, large once decompressed
    const answers = await Promise.all(Array.from({ length: 3 }, () => post(zipped, { 'content-encoding': 'gzip' })));
    expect(answers.map((a) => [a.status, a.body.received])).toEqual(Array.from({ length: 3 }, () => [202, big.count]));
  });
});
