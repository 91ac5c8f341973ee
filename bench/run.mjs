#!/usr/bin/env node
// Intake benchmark: the built service against a bare Fastify server, in one run, on this machine.
//
//   npm run bench                      every scenario, 10 s each (run `npm run build` first when
//                                      calling `node bench/run.mjs` directly)
//   npm run bench -- --quick           3 s per scenario (smoke run)
//   npm run bench -- --duration 20     seconds per scenario
//   npm run bench -- --scenarios trace-start,debug
//   npm run bench -- --scale           trace-start (and debug) on an empty database, then again
//                                      after inserting 1 million incidents and API log rows
//   npm run bench -- --profile         trace-start with the service under `node --cpu-prof`;
//                                      prints the top self-time functions
//
// The service runs from dist/ as a child process on a PostgreSQL that this script starts itself
// (EmbeddedPostgres from dist/, data in a temporary directory), so the script can read the database
// and check that every 202 left its effects. Only 127.0.0.1 is ever sent traffic. Exit status:
// 0 when the bench ran correctly (whatever the figures), 1 when an effect was lost or a scenario
// failed, 130 when interrupted.
import autocannon from 'autocannon';
import pg from 'pg';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const MAIN = join(ROOT, 'dist', 'src', 'main.js');
const BARE = join(ROOT, 'bench', 'bare-server.mjs');
const NEST_FLOOR = join(ROOT, 'bench', 'nest-floor.mjs');
const FLOOR_SECRET = 'nest-floor-accepts-any-bearer';
const ADMIN_KEY = `bench_${randomBytes(24).toString('hex')}`;
const MAX_BODY = 5_242_880;
const MB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Options

const USAGE = `usage: npm run bench -- [--quick] [--duration N] [--connections N] [--scenarios a,b] [--scale] [--profile]`;

function parseArgs(argv) {
  const opts = { duration: 10, quick: false, connections: 50, scenarios: null, scale: false, profile: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    const positive = (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} must be a positive number, got ${v}`);
      return n;
    };
    switch (flag) {
      case '--quick': opts.quick = true; opts.duration = 3; break;
      case '--duration': opts.duration = positive(value()); break;
      case '--connections': opts.connections = Math.round(positive(value())); break;
      case '--scenarios': opts.scenarios = value().split(',').map((s) => s.trim()).filter(Boolean); break;
      case '--scale': opts.scale = true; break;
      case '--profile': opts.profile = true; break;
      case '--help': case '-h': console.log(USAGE); process.exit(0); break;
      default: throw new Error(`unknown option ${arg}\n${USAGE}`);
    }
  }
  return opts;
}

// ---------------------------------------------------------------------------------------------
// Payloads: ~400-byte Zipkin-like spans whose traceId is a 16-hex run prefix + a 16-hex counter.

const span = (traceId, status) =>
  `{"traceId":"${traceId}","parentId":"6b221d5bc9e6496c","id":"7c332e6cd0f7507d","kind":"SERVER","name":"post /api/checkout","timestamp":1732262400000000,"duration":1200,"localEndpoint":{"serviceName":"checkout","ipv4":"10.0.0.12"},"remoteEndpoint":{"ipv4":"10.0.0.7","port":51234},"tags":{"http.method":"POST","http.path":"/api/checkout","http.status_code":"200"},"status":"${status}"}`;

const newPrefix = () => randomBytes(8).toString('hex');
const hex16 = (n) => n.toString(16).padStart(16, '0');

/** An array of unmatched spans padded to just under the 5242880-byte limit. */
function bigBody() {
  const prefix = newPrefix();
  const parts = [];
  let size = 2; // [ ]
  for (let i = 0; ; i++) {
    const s = span(prefix + hex16(i), 'queued');
    if (size + s.length + 1 > MAX_BODY - 600) break;
    parts.push(s);
    size += s.length + (parts.length > 1 ? 1 : 0);
  }
  let body = `[${parts.join(',')}]`;
  // Pad the last span with a tag so the body ends 64 bytes under the limit.
  const pad = MAX_BODY - 64 - Buffer.byteLength(body) - '"padding":"",'.length;
  body = body.slice(0, -1 - parts.at(-1).length) + parts.at(-1).replace('"tags":{', `"tags":{"padding":"${'x'.repeat(Math.max(0, pad))}",`) + ']';
  return { body, spans: parts.length };
}

/**
 * Counts, for one scenario run against one target, what was sent and what each answer said.
 * Every request has a sequence number; its spans' traceIds are prefix + hex(seq * spans + k).
 */
class Tracker {
  constructor(spansPerRequest = 1) {
    this.prefix = newPrefix();
    // Rows of this run are newer than this (the database checks read only those: fast with 1M rows).
    this.since = new Date(Date.now() - 1000);
    this.spansPerRequest = spansPerRequest;
    this.nextSeq = 0;
    this.sent = new Set();
    this.answered = new Set();
    this.acked = new Set(); // 2xx
    this.rejected = new Set(); // answered, not 2xx
    this.sentResolve = new Set();
    this.answeredResolve = new Set();
    this.ackedResolved = new Set(); // completion answered 202 with "resolved"
    this.statusCounts = {};
    this.rejectedExamples = [];
    this.unexpected = 0;
    this.unexpectedExample = null;
  }
  traceId(seq, k = 0) {
    return this.prefix + hex16(seq * this.spansPerRequest + k);
  }
  seqOf(traceId) {
    if (!traceId || traceId.slice(0, 16) !== this.prefix) return null;
    return Math.floor(parseInt(traceId.slice(16), 16) / this.spansPerRequest);
  }
  status(code, body) {
    this.statusCounts[code] = (this.statusCounts[code] ?? 0) + 1;
    if ((code < 200 || code >= 300) && this.rejectedExamples.length < 3) this.rejectedExamples.push(`${code} ${String(body).slice(0, 300)}`);
  }
  /** Checks that a 2xx body reports `count` times the action expected (service only). */
  expect(body, expected) {
    if (!expected) return true;
    const n = countOccurrences(body, `"action":"${expected.action}"`);
    if (n === expected.count) return true;
    this.unexpected++;
    this.unexpectedExample ??= `expected ${expected.count}× ${expected.action}, got: ${body.slice(0, 300)}`;
    return false;
  }
}

function countOccurrences(text, needle) {
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** One single-span request per call, a new traceId each time (or a fixed body when `fixed`). */
function singleSpanRequests(t, status, expected) {
  return [
    {
      method: 'POST',
      path: '/v1/trace',
      setupRequest(req, ctx) {
        const seq = t.nextSeq++;
        ctx.seq = seq;
        t.sent.add(seq);
        req.body = span(t.traceId(seq), status);
        return req;
      },
      onResponse(code, body, ctx) {
        t.status(code, body);
        t.answered.add(ctx.seq);
        if (code >= 200 && code < 300) {
          t.acked.add(ctx.seq);
          t.expect(body, expected);
        } else t.rejected.add(ctx.seq);
      },
    },
  ];
}

/** Zipkin arrays of `n` spans, each with its own traceId. */
function arrayRequests(t, status, expected) {
  const n = t.spansPerRequest;
  return [
    {
      method: 'POST',
      path: '/v1/trace',
      setupRequest(req, ctx) {
        const seq = t.nextSeq++;
        ctx.seq = seq;
        t.sent.add(seq);
        const spans = new Array(n);
        for (let k = 0; k < n; k++) spans[k] = span(t.traceId(seq, k), status);
        req.body = `[${spans.join(',')}]`;
        return req;
      },
      onResponse(code, body, ctx) {
        t.status(code, body);
        t.answered.add(ctx.seq);
        if (code >= 200 && code < 300) {
          t.acked.add(ctx.seq);
          t.expect(body, expected);
        } else t.rejected.add(ctx.seq);
      },
    },
  ];
}

/** A start (`running`), then its completion (`completed`, same traceId), per connection in turn. */
function startCompleteRequests(t, check) {
  return [
    ...singleSpanRequests(t, 'running', check ? { action: 'created', count: 1 } : null),
    {
      method: 'POST',
      path: '/v1/trace',
      setupRequest(req, ctx) {
        t.sentResolve.add(ctx.seq);
        req.body = span(t.traceId(ctx.seq), 'completed');
        return req;
      },
      onResponse(code, body, ctx) {
        t.status(code, body);
        t.answeredResolve.add(ctx.seq);
        if (code >= 200 && code < 300) {
          if (!check || body.includes('"action":"resolved"')) t.ackedResolved.add(ctx.seq);
          // When its start was not accepted nothing was open: "no-open-incident" is then right.
          else if (t.acked.has(ctx.seq)) t.expect(body, { action: 'resolved', count: 1 });
          else t.expect(body, { action: 'no-open-incident', count: 1 });
        }
      },
    },
  ];
}

/** A fixed body (no per-request set-up, so the load generator does no work per request). */
function fixedRequests(t, body, expected) {
  return [
    {
      method: 'POST',
      path: '/v1/trace',
      body,
      onResponse(code, text) {
        t.status(code, text);
        if (code >= 200 && code < 300) t.expect(text, expected);
      },
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Scenarios. `setup` creates the token and filters through the admin API; `requests` builds the
// autocannon request list for a tracker (check: the target is the service, whose answers are
// checked); `verify` compares the database with the answers.

const ZIPKIN = { template: 'zipkin-tracing' };

function scenarios(opts) {
  const big = bigBody();
  return [
    {
      name: 'unmatched',
      body: '~400 B span',
      note: 'span status "queued": the zipkin-tracing filter matches nothing',
      setup: (api) => tokenWithFilters(api, 'bench-unmatched', [ZIPKIN]),
      requests: (t, check) => singleSpanRequests(t, 'queued', check ? { action: 'unmatched', count: 1 } : null),
      verify: verifyNoEffects,
    },
    {
      name: 'filters-100',
      body: '~400 B span',
      note: 'same payload as unmatched; 99 non-matching filters plus zipkin-tracing',
      setup: (api) => tokenWithFilters(api, 'bench-filters-100', [...hundredFilters(), ZIPKIN]),
      requests: (t, check) => singleSpanRequests(t, 'queued', check ? { action: 'unmatched', count: 100 } : null),
      verify: verifyNoEffects,
    },
    {
      name: 'trace-start',
      body: '~400 B span',
      note: 'status "running", a new traceId per request: each 202 opens one incident',
      setup: (api) => tokenWithFilters(api, 'bench-trace-start', [ZIPKIN]),
      requests: (t, check) => singleSpanRequests(t, 'running', check ? { action: 'created', count: 1 } : null),
      verify: verifyOpened,
    },
    {
      name: 'start-complete',
      body: '~400 B span',
      note: 'per connection: running, then completed with the same traceId (resolves it)',
      setup: (api) => tokenWithFilters(api, 'bench-start-complete', [ZIPKIN]),
      requests: (t, check) => startCompleteRequests(t, check),
      verify: verifyStartComplete,
    },
    {
      name: 'debug',
      body: '~400 B span',
      note: 'token in debug mode (every call in the API log); each 202 opens one incident',
      setup: (api) => tokenWithFilters(api, 'bench-debug', [ZIPKIN], { debug: true }),
      requests: (t, check) => singleSpanRequests(t, 'running', check ? { action: 'created', count: 1 } : null),
      verify: async (db, s, t) => [...(await verifyOpened(db, s, t)), ...(await verifyApiLog(db, s, t))],
      debug: true,
    },
    {
      name: 'zipkin-100',
      body: '~40 KB, 100 spans',
      spansPerRequest: 100,
      note: 'arrays of 100 running spans with their own traceIds: each 202 opens 100 incidents',
      setup: (api) => tokenWithFilters(api, 'bench-zipkin-100', [ZIPKIN]),
      requests: (t, check) => arrayRequests(t, 'running', check ? { action: 'created', count: 100 } : null),
      verify: verifyOpened,
    },
    {
      name: 'body-5mib',
      body: `${(Buffer.byteLength(big.body) / MB).toFixed(2)} MiB, ${big.spans} spans`,
      connections: 4,
      timeout: 120,
      note: `${Buffer.byteLength(big.body)} bytes (limit ${MAX_BODY}): ${big.spans} unmatched spans; 4 connections`,
      setup: (api) => tokenWithFilters(api, 'bench-body-5mib', [ZIPKIN]),
      requests: (t, check) => fixedRequests(t, big.body, check ? { action: 'unmatched', count: big.spans } : null),
      verify: verifyNoEffects,
    },
  ].map((s) => ({ connections: opts.connections, spansPerRequest: 1, timeout: 30, ...s }));
}

/** 99 filters that never match the bench's spans, on keys spans have and keys they lack. */
function hundredFilters() {
  return Array.from({ length: 99 }, (_, i) => {
    const keys = ['status', 'name', 'tags.http.path', 'tags.error', 'localEndpoint.serviceName', 'kind'];
    const payloadKey = keys[i % keys.length];
    return {
      name: `no-match-${i}`,
      trigger: { payloadKey, valueContains: `never-${i}`, mapIncidentWith: 'traceId', titleFrom: 'name' },
      ...(i % 2 === 0 ? { resolve: { payloadKey, valueContains: `never-done-${i}`, incidentMappedWith: 'traceId' } } : {}),
    };
  });
}

async function tokenWithFilters(api, name, filters, tokenFields = {}) {
  const token = await api('POST', '/api/tokens', { name, ...tokenFields });
  for (const filter of filters) await api('POST', '/api/filters', { tokenId: token.id, ...filter });
  return { tokenId: token.id, secret: token.token };
}

// ---------------------------------------------------------------------------------------------
// Database checks: every 2xx must have left its effects; nothing must come from a rejected call.

/** Waits until the calls still in flight when the load stopped have finished (counts stop moving). */
async function settle(db, tokenId, since) {
  const read = async () =>
    JSON.stringify(
      (
        await db.query(
          `select (select count(*) from incidents where token_id = $1 and created_at >= $2) as i,
                  (select count(*) from incidents where token_id = $1 and created_at >= $2 and status = 'resolved') as r,
                  (select count(*) from api_log where token_id = $1 and received_at >= $2) as l`,
          [tokenId, since],
        )
      ).rows[0],
    );
  await sleep(400);
  let last = await read();
  for (let waited = 0; waited < 15_000; waited += 400) {
    await sleep(400);
    const now = await read();
    if (now === last) return;
    last = now;
  }
}

/** What the answers themselves must show: every request accepted, nothing odd in the outcomes. */
function answerChecks(m) {
  const checks = [];
  if (m.total === 0) checks.push({ ok: false, text: 'no request was answered' });
  if (m.non2xx) checks.push({ ok: false, text: `${m.non2xx} answers were not 2xx: ${statusText(m)}; e.g. ${m.tracker.rejectedExamples.join(' | ')}` });
  if (m.errors || m.timeouts) checks.push({ ok: false, text: `${m.errors} connection errors, ${m.timeouts} timeouts` });
  if (m.tracker.unexpected) checks.push({ ok: false, text: `${m.tracker.unexpected} 202 answers with an unexpected outcome, e.g. ${m.tracker.unexpectedExample}` });
  return checks;
}

async function verifyNoEffects(db, s) {
  const { rows } = await db.query(`select count(*)::int as n from incidents where token_id = $1`, [s.tokenId]);
  return [
    { ok: rows[0].n === 0, text: `incidents ${rows[0].n} (expected 0)` },
  ];
}

async function incidentsBySeq(db, s, t) {
  const { rows } = await db.query(`select mapped_value, status from incidents where token_id = $1 and created_at >= $2`, [s.tokenId, t.since]);
  const bySeq = new Map();
  let unknown = 0;
  for (const row of rows) {
    const seq = t.seqOf(row.mapped_value);
    if (seq === null || !t.sent.has(seq)) {
      unknown++;
      continue;
    }
    const entry = bySeq.get(seq) ?? { n: 0, resolved: 0 };
    entry.n++;
    if (row.status === 'resolved') entry.resolved++;
    bySeq.set(seq, entry);
  }
  return { rows, bySeq, unknown };
}

async function verifyOpened(db, s, t) {
  const { bySeq, unknown } = await incidentsBySeq(db, s, t);
  const per = t.spansPerRequest;
  let lost = 0;
  let found = 0;
  for (const seq of t.acked) {
    const n = bySeq.get(seq)?.n ?? 0;
    found += n;
    lost += per - Math.min(per, n);
  }
  let fromRejected = 0;
  let inFlight = 0;
  for (const [seq, entry] of bySeq) {
    if (t.rejected.has(seq)) fromRejected += entry.n;
    else if (!t.answered.has(seq)) inFlight += entry.n;
  }
  const expected = t.acked.size * per;
  const checks = [
    { ok: lost === 0, text: `incidents ${found} for ${t.acked.size} × 202${per > 1 ? ` × ${per}` : ''} = ${expected} expected${lost ? `: ${lost} LOST` : ''}` },
  ];
  if (inFlight) checks.push({ ok: true, text: `+${inFlight} from requests still in flight when the run stopped` });
  if (fromRejected) checks.push({ ok: false, text: `${fromRejected} incidents from calls answered non-2xx` });
  if (unknown) checks.push({ ok: false, text: `${unknown} incidents with traceIds never sent` });
  return checks;
}

async function verifyStartComplete(db, s, t) {
  const { bySeq, unknown } = await incidentsBySeq(db, s, t);
  let lostCreated = 0;
  let lostResolved = 0;
  for (const seq of t.acked) if (!bySeq.has(seq)) lostCreated++;
  for (const seq of t.ackedResolved) if (!bySeq.get(seq)?.resolved) lostResolved++;
  let resolvedInDb = 0;
  let resolvedInFlight = 0;
  let strayResolved = 0;
  let createdInFlight = 0;
  let fromRejected = 0;
  for (const [seq, entry] of bySeq) {
    if (entry.resolved) {
      resolvedInDb++;
      if (!t.ackedResolved.has(seq)) {
        if (t.sentResolve.has(seq) && !t.answeredResolve.has(seq)) resolvedInFlight++;
        else strayResolved++;
      }
    }
    if (t.rejected.has(seq)) fromRejected++;
    else if (!t.answered.has(seq)) createdInFlight++;
  }
  const checks = [
    { ok: lostCreated === 0, text: `incidents ${bySeq.size - createdInFlight} for ${t.acked.size} started 202s${lostCreated ? `: ${lostCreated} LOST` : ''}` },
    { ok: lostResolved === 0, text: `resolved ${resolvedInDb - resolvedInFlight} for ${t.ackedResolved.size} completed 202s answering "resolved"${lostResolved ? `: ${lostResolved} LOST` : ''}` },
  ];
  if (createdInFlight || resolvedInFlight) checks.push({ ok: true, text: `+${createdInFlight} created / +${resolvedInFlight} resolved by requests in flight when the run stopped` });
  if (strayResolved) checks.push({ ok: false, text: `${strayResolved} incidents resolved although no completion said so` });
  if (fromRejected) checks.push({ ok: false, text: `${fromRejected} incidents from calls answered non-2xx` });
  if (unknown) checks.push({ ok: false, text: `${unknown} incidents with traceIds never sent` });
  return checks;
}

async function verifyApiLog(db, s, t) {
  const { rows } = await db.query(
    `select status_code, substring(body from '"traceId":"([0-9a-f]{32})"') as trace_id from api_log where token_id = $1 and received_at >= $2`,
    [s.tokenId, t.since],
  );
  const logged = new Map();
  let unknown = 0;
  for (const row of rows) {
    const seq = t.seqOf(row.trace_id);
    if (seq === null || !t.sent.has(seq)) {
      unknown++;
      continue;
    }
    logged.set(seq, row.status_code);
  }
  let lost = 0;
  let inFlight = 0;
  for (const seq of t.answered) if (!logged.has(seq)) lost++;
  for (const seq of logged.keys()) if (!t.answered.has(seq)) inFlight++;
  let wrongStatus = 0;
  for (const seq of t.acked) if (logged.has(seq) && logged.get(seq) !== 202) wrongStatus++;
  const checks = [
    { ok: lost === 0, text: `API log ${rows.length - inFlight - unknown} rows for ${t.answered.size} answered calls${lost ? `: ${lost} LOST` : ''}` },
  ];
  if (inFlight) checks.push({ ok: true, text: `+${inFlight} log rows from requests in flight when the run stopped` });
  if (wrongStatus) checks.push({ ok: false, text: `${wrongStatus} log rows with a status other than the 202 answered` });
  if (unknown) checks.push({ ok: false, text: `${unknown} log rows with traceIds never sent` });
  return checks;
}

/** API log rows of tokens not in debug mode: there must be none. */
async function verifyNoStrayLog(db, debugTokenIds) {
  const { rows } = await db.query(`select count(*)::int as n from api_log where not (token_id = any($1::uuid[]))`, [debugTokenIds]);
  return { ok: rows[0].n === 0, text: `API log rows of tokens not in debug mode: ${rows[0].n} (expected 0)` };
}

// ---------------------------------------------------------------------------------------------
// Processes, with clean-up on every exit path.

const cleanup = { children: new Set(), postgres: null, dirs: new Set(), instance: null, interrupted: false };

function tempDir(label) {
  const dir = mkdtempSync(join(os.tmpdir(), `intake-bench-${label}-`));
  // As root the embedded PostgreSQL runs as "postgres", which must be able to enter it.
  chmodSync(dir, 0o755);
  cleanup.dirs.add(dir);
  return dir;
}

/** Spawns a node child and waits for `listening on <url>` (and `ready` when given) in its output. */
function startChild(label, args, env, ready = () => true) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  cleanup.children.add(child);
  child.once('exit', () => cleanup.children.delete(child));
  let output = '';
  const later = [];
  return new Promise((resolve, reject) => {
    let started = false;
    const timer = setTimeout(() => reject(new Error(`${label} did not start within 60 s:\n${output}`)), 60_000);
    const onData = (chunk) => {
      const text = chunk.toString();
      if (started) {
        for (const line of text.split('\n')) if (line.trim() && later.length < 1000) later.push(line);
        return;
      }
      output += text;
      const match = /listening on (https?:\/\/\S+)/.exec(output);
      if (match && ready(output)) {
        started = true;
        clearTimeout(timer);
        const url = new URL(match[1]);
        if (url.hostname !== '127.0.0.1') reject(new Error(`${label} listens on ${url.hostname}, not 127.0.0.1`));
        resolve({ child, url: url.origin, pid: child.pid, startOutput: output, laterOutput: later });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    // 'close', not 'exit': by then stdout and stderr are read to the end, so the output is whole.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const signalled = signal !== null || code === 0; // the service exits 0 after a SIGTERM/SIGINT
      const how = `${label} (pid ${child.pid}) exited with ${code ?? signal}${child.benchStopping ? '' : ` although the bench did not stop it${signalled ? ' (a signal from another process?)' : ''}`}`;
      if (!started) reject(new Error(`${how} during start-up:\n${output}`));
      else if (!child.benchStopping && !cleanup.interrupted) {
        // Stop the load now: the run is void. measure() reports it.
        child.unexpectedExit = `${how}; its last output:\n${later.slice(-15).join('\n')}`;
        cleanup.instance?.stop();
      }
    });
  });
}

function stopChild(child, signal = 'SIGTERM', graceMs = 20_000) {
  if (child) child.benchStopping = true;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

async function startPostgres() {
  const { EmbeddedPostgres } = await import(join(ROOT, 'dist', 'src', 'database', 'embedded-postgres.js'));
  const dir = tempDir('pg');
  const postgres = new EmbeddedPostgres({ dataDir: dir, onNotice: (line) => console.log(`  postgres: ${line}`) });
  cleanup.postgres = postgres;
  const url = await postgres.start();
  if (new URL(url).hostname !== '127.0.0.1') throw new Error(`PostgreSQL is not on 127.0.0.1: ${new URL(url).hostname}`);
  return url;
}

async function createDatabase(serverUrl, name) {
  const admin = await connect(serverUrl);
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The node flags of package.json's `start:prod` script (`node <flags> dist/src/main.js`). */
function productionNodeFlags() {
  const script = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts['start:prod'] ?? '';
  return script.split(/\s+/).filter((word) => word.startsWith('--'));
}

async function startService(databaseUrl, profileDir) {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.tmpdir(),
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: tempDir('data'),
    DATABASE_URL: databaseUrl,
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'warn',
    INTAKE_RATE_LIMIT: 'off',
    // glibc's allocator settings (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, ...), to compare them.
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('MALLOC_'))),
  };
  // The service runs with the Node flags of `npm run start:prod` (heap sizes), as in production.
  // SERVICE_NODE_OPTIONS come after them, so that one given twice takes its value from there (in
  // NODE_OPTIONS the command line's would win).
  const extraFlags = (process.env.SERVICE_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean);
  const args = [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...productionNodeFlags(), ...extraFlags, MAIN];
  const service = await startChild('the service', args, env, (out) => out.includes('Database:'));
  const api = async (method, path, body) => {
    const response = await fetch(service.url + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : null;
  };
  return { ...service, api };
}

/** Stops everything; every caller (signal, error, normal end) waits for the same single clean-up. */
let cleaning = null;
function cleanUp() {
  cleaning ??= doCleanUp();
  return cleaning;
}

async function doCleanUp() {
  if (cleanup.instance) cleanup.instance.stop();
  await Promise.all([...cleanup.children].map((child) => stopChild(child)));
  if (cleanup.postgres) {
    await cleanup.postgres.stop().catch((error) => console.error(`could not stop PostgreSQL: ${error.message}`));
    cleanup.postgres = null;
  }
  for (const dir of cleanup.dirs) rmSync(dir, { recursive: true, force: true });
  cleanup.dirs.clear();
}

// Last resort: never leave a child running or a temporary directory behind.
process.on('exit', () => {
  for (const child of cleanup.children) child.kill('SIGKILL');
  for (const dir of cleanup.dirs) rmSync(dir, { recursive: true, force: true });
});

/** A client for the checks; a connection closed under it (PostgreSQL stopping) is not a crash. */
async function connect(url) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', (error) => {
    if (!cleanup.interrupted) console.error(`database connection error: ${error.message}`);
  });
  await client.connect();
  return client;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (cleanup.interrupted) return;
    cleanup.interrupted = true;
    console.error(`\n${signal}: stopping the load, the service, the bare server and PostgreSQL`);
    cleanUp().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// Measuring

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function readRssKb(pid, field = 'VmRSS') {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

function load({ url, connections, duration, requests, secret, timeout }) {
  return new Promise((resolve, reject) => {
    if (cleanup.interrupted) return reject(new Error('interrupted'));
    const instance = autocannon(
      {
        url: `${url}/v1/trace`,
        connections,
        duration,
        timeout,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
        requests,
      },
      (error, result) => {
        cleanup.instance = null;
        if (error) reject(error);
        else resolve(result);
      },
    );
    cleanup.instance = instance;
  });
}

/** Runs one scenario against one target; samples the target's RSS every 100 ms when `pid` is given. */
const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) used so far by a process, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** The PostgreSQL server process and its children (one backend per connection, workers). */
function postgresPids() {
  const root = cleanup.postgres?.process?.pid;
  if (!root) return [];
  const pids = [root];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === root) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/** Busy CPU seconds of the whole machine (every process, all cores), from /proc/stat. */
function machineBusySeconds() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = fields;
    return (user + nice + system + irq + softirq + (steal ?? 0)) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/**
 * CPU used over a run by the target, PostgreSQL, this load generator and everything else on the
 * machine (other developers' jobs skew a run: "other" shows it), in % of one core.
 */
function cpuMeter(targetPid) {
  const machineBefore = machineBusySeconds();
  const pgBefore = new Map(postgresPids().map((pid) => [pid, cpuSeconds(pid)]));
  const targetBefore = cpuSeconds(targetPid);
  const selfBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  return () => {
    const wall = Number(process.hrtime.bigint() - started) / 1e9;
    let pgCpu = 0;
    for (const pid of postgresPids()) pgCpu += cpuSeconds(pid) - (pgBefore.get(pid) ?? 0);
    const self = process.cpuUsage(selfBefore);
    const pct = (seconds) => (100 * seconds) / wall;
    const use = { target: pct(cpuSeconds(targetPid) - targetBefore), postgres: pct(pgCpu), generator: pct((self.user + self.system) / 1e6) };
    use.other = Math.max(0, pct(machineBusySeconds() - machineBefore) - use.target - use.postgres - use.generator);
    return use;
  };
}

const ALTERNATIONS = 4;
const ALTERNATE_SECONDS = 2;

/**
 * The cost of 100 filters, measured so that the machine's drift cancels out: unmatched and
 * filters-100 run in turn, ALTERNATE_SECONDS each, ALTERNATIONS times, and their request counts are
 * compared. Back-to-back 10-second runs moved this figure between 18 % and 50 % on a shared machine.
 */
async function alternatedFiltersCost(service, chosen, opts) {
  const one = chosen.find((s) => s.name === 'unmatched');
  const hundred = chosen.find((s) => s.name === 'filters-100');
  if (!one || !hundred || opts.quick) return null;
  process.stdout.write(`filters-100 against unmatched, alternated ${ALTERNATE_SECONDS} s at a time, ${ALTERNATIONS} times… `);
  const totals = { one: 0, filters: 0 };
  for (let i = 0; i < ALTERNATIONS; i++) {
    totals.one += (await measure(service, { ...one, duration: ALTERNATE_SECONDS }, opts, { secret: one.secret })).total;
    totals.filters += (await measure(service, { ...hundred, duration: ALTERNATE_SECONDS }, opts, { secret: hundred.secret })).total;
  }
  const cost = 1 - totals.filters / totals.one;
  console.log(`costs ${(cost * 100).toFixed(1)} %`);
  return { ...totals, cost };
}

async function measure(target, s, opts, { check = false, secret = null } = {}) {
  const t = new Tracker(s.spansPerRequest);
  let peakKb = 0;
  const sample = () => {
    const kb = target.pid ? readRssKb(target.pid) : null;
    if (kb && kb > peakKb) peakKb = kb;
  };
  sample();
  const sampler = setInterval(sample, 100);
  const cpu = cpuMeter(target.pid);
  // Monotonic microseconds, the clock of a V8 CPU profile (to cut a profile to this window).
  const windowStartUs = Number(process.hrtime.bigint() / 1000n);
  let result;
  let cpuUse;
  try {
    result = await load({ url: target.url, connections: s.connections, duration: s.duration ?? opts.duration, requests: s.requests(t, check), secret, timeout: s.timeout });
  } finally {
    cpuUse = cpu();
    clearInterval(sampler);
    sample();
  }
  if (target.child.unexpectedExit) throw new Error(`scenario ${s.name ?? '(warm-up)'}: ${target.child.unexpectedExit}`);
  const windowEndUs = Number(process.hrtime.bigint() / 1000n);
  const seconds = result.duration || s.duration || opts.duration;
  return {
    window: [windowStartUs, windowEndUs],
    cpu: cpuUse,
    tracker: t,
    rps: result.requests.total / seconds,
    total: result.requests.total,
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    peakMb: peakKb / 1024,
    statusCounts: t.statusCounts,
  };
}

// ---------------------------------------------------------------------------------------------
// Output

const fmt = (n, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? '—' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));

function markdownTable(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

function machineLine() {
  return `${os.cpus().length} CPUs (${os.cpus()[0]?.model?.trim() ?? 'unknown'}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB memory, node ${process.version}, ${os.platform()} ${os.release()}`;
}

function commandLine() {
  const args = process.argv.slice(2).join(' ');
  return process.env.npm_lifecycle_event === 'bench' ? `npm run bench${args ? ` -- ${args}` : ''}` : `node bench/run.mjs${args ? ` ${args}` : ''}`;
}

/** Other processes' CPU above this (% of one core) during a measurement make it unreliable. */
const NOISE_LIMIT = 30;
const noisy = (...measurements) => {
  const worst = Math.max(...measurements.map((m) => m.cpu?.other ?? 0));
  return worst > NOISE_LIMIT ? ` — UNRELIABLE: other processes on the machine used up to ${fmt(worst)} % of a core meanwhile; run again on a quiet machine` : '';
};

const cpuText = (cpu) => [cpu.target, cpu.postgres, cpu.generator, cpu.other].map((n) => fmt(n)).join('/');

function statusText(m) {
  const codes = Object.entries(m.statusCounts).filter(([code]) => !(code >= 200 && code < 300));
  const extra = [...codes.map(([code, n]) => `${n}×${code}`), ...(m.errors ? [`${m.errors} errors`] : []), ...(m.timeouts ? [`${m.timeouts} timeouts`] : [])];
  return `${m.non2xx}${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// CPU profile summary

/**
 * Self time per function from a V8 .cpuprofile. With `window` ([start, end] in monotonic µs, the
 * profile's clock) only the samples taken in it count; otherwise each node's hitCount.
 */
function summariseProfile(dir, window, label, top = 25) {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')) : [];
  if (files.length === 0) return { text: `no .cpuprofile was written in ${dir}`, file: null };
  const profile = JSON.parse(readFileSync(join(dir, files[0]), 'utf8'));
  const hitsById = new Map();
  let windowed = false;
  if (window && profile.samples?.length && profile.timeDeltas?.length === profile.samples.length) {
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      at += profile.timeDeltas[i];
      if (at >= window[0] && at <= window[1]) hitsById.set(profile.samples[i], (hitsById.get(profile.samples[i]) ?? 0) + 1);
    }
    windowed = hitsById.size > 0;
  }
  if (!windowed) for (const node of profile.nodes) hitsById.set(node.id, node.hitCount ?? 0);
  const totalHits = [...hitsById.values()].reduce((sum, n) => sum + n, 0);
  const intervalMs = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples?.length ?? totalHits);
  const byFunction = new Map();
  const byPackage = new Map();
  for (const node of profile.nodes) {
    const hits = hitsById.get(node.id) ?? 0;
    if (!hits) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || `(anonymous:${lineNumber + 1})`;
    const where = url ? url.replace(`file://${ROOT}/`, '') : '';
    const key = `${name}\u0000${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
    const pkg = !url ? name.startsWith('(') ? name : '(native/V8)' : url.startsWith('node:') ? 'node core' : /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (url.includes('/dist/') ? 'service (dist/)' : url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + hits);
  }
  const idle = byFunction.get('(idle)\u0000') ?? 0;
  const busy = totalHits - idle;
  const pct = (hits, of) => `${((100 * hits) / Math.max(1, of)).toFixed(1)} %`;
  const fnRows = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top).map(([key, hits], i) => {
    const [name, where] = key.split('\u0000');
    return [i + 1, name, where || '—', pct(hits, totalHits), name === '(idle)' ? '—' : pct(hits, busy), fmt(hits * intervalMs)];
  });
  const pkgRows = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([pkg, hits]) => [pkg, pct(hits, totalHits), pkg === '(idle)' ? '—' : pct(hits, busy), fmt(hits * intervalMs)]);
  const span = windowed ? `the ${label} window only` : 'the whole process life (start-up, set-up, warm-up and the scenarios)';
  const text = [
    `CPU profile of the service (${files[0]}), ${span}: ${fmt(totalHits)} samples at ~${intervalMs.toFixed(2)} ms; the main thread was idle (waiting on I/O: PostgreSQL, sockets) ${pct(idle, totalHits)} of it.`,
    '',
    `Top ${top} functions by self time ("of busy" leaves out idle):`,
    markdownTable(['#', 'function', 'script', 'self', 'of busy', 'self ms'], fnRows),
    '',
    'Self time by package:',
    markdownTable(['package', 'self', 'of busy', 'self ms'], pkgRows),
  ].join('\n');
  return { text, file: join(dir, files[0]) };
}

// ---------------------------------------------------------------------------------------------
// Runs

async function warmUp(service, bare, opts, givenSecret = null) {
  const seconds = opts.quick ? 1 : 2;
  const secret = givenSecret ?? (await tokenWithFilters(service.api, 'bench-warm-up', [ZIPKIN])).secret;
  const s = { connections: opts.connections, spansPerRequest: 1, duration: seconds, timeout: 30, secret, requests: (t) => singleSpanRequests(t, 'queued', null) };
  await measure(service, s, opts, { secret });
  if (bare) await measure(bare, s, opts);
}

/** The main run: every scenario against the service, its effects checked, then against bare Fastify. */
async function mainRun(opts) {
  const all = scenarios(opts);
  let chosen = all;
  if (opts.scenarios) {
    const unknown = opts.scenarios.filter((name) => !all.some((s) => s.name === name));
    if (unknown.length) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${all.map((s) => s.name).join(', ')}`);
    chosen = all.filter((s) => opts.scenarios.includes(s.name));
  } else if (opts.profile) {
    chosen = all.filter((s) => s.name === 'trace-start');
  }

  console.log('Starting PostgreSQL (embedded, temporary directory)…');
  const serverUrl = await startPostgres();
  const databaseUrl = await createDatabase(serverUrl, 'intake_bench');
  const profileDir = opts.profile ? tempDir('profile') : null;
  console.log(`Starting the service (node ${opts.profile ? '--cpu-prof ' : ''}dist/src/main.js) and the bare Fastify server…`);
  const service = await startService(databaseUrl, profileDir);
  const bare = await startChild('the bare server', [BARE], { PATH: process.env.PATH ?? '' });
  // The framework's own floor, measured on the unmatched payload only.
  const floor = chosen.some((s) => s.name === 'unmatched') ? await startChild('the Nest floor', [NEST_FLOOR], { PATH: process.env.PATH ?? '' }) : null;
  console.log(`  service ${service.url} (pid ${service.pid}), bare fastify ${bare.url} (pid ${bare.pid})${floor ? `, nest floor ${floor.url} (pid ${floor.pid})` : ''}`);

  for (const s of chosen) Object.assign(s, await s.setup(service.api));
  const db = await connect(databaseUrl);

  let failed = false;
  const results = [];
  let filtersCost = null;
  try {
    console.log(`Warming up both (${opts.quick ? 1 : 2} s each)…`);
    await warmUp(service, bare, opts);
    if (floor) await warmUp(floor, null, opts, FLOOR_SECRET);
    for (const s of chosen) {
      const seconds = s.duration ?? opts.duration;
      process.stdout.write(`${s.name.padEnd(15)} service ${seconds} s, ${s.connections} connections… `);
      const m = await measure(service, s, opts, { check: true, secret: s.secret });
      process.stdout.write(`${fmt(m.rps)} req/s; checking the database… `);
      await settle(db, s.tokenId, m.tracker.since);
      let checks;
      try {
        checks = await s.verify(db, s, m.tracker);
      } catch (error) {
        checks = [{ ok: false, text: `check failed: ${error.message}` }];
      }
      checks.push(...answerChecks(m));
      process.stdout.write(`bare… `);
      const b = await measure(bare, s, opts);
      let f = null;
      if (floor && s.name === 'unmatched') {
        process.stdout.write(`${fmt(b.rps)} req/s; nest floor… `);
        f = await measure(floor, s, opts, { secret: FLOOR_SECRET });
      }
      console.log(`${fmt((f ?? b).rps)} req/s`);
      for (const c of checks) console.log(`    ${c.ok ? 'ok  ' : 'FAIL'} ${c.text}`);
      if (checks.some((c) => !c.ok)) failed = true;
      results.push({ s, m, b, f, checks });
    }
    filtersCost = await alternatedFiltersCost(service, chosen, opts);
    const stray = await verifyNoStrayLog(db, chosen.filter((s) => s.debug).map((s) => s.tokenId));
    console.log(`    ${stray.ok ? 'ok  ' : 'FAIL'} ${stray.text}`);
    if (!stray.ok) failed = true;
    if (service.child.unexpectedExit) {
      console.log(`    FAIL ${service.child.unexpectedExit}`);
      failed = true;
    }
  } finally {
    await db.end().catch(() => undefined);
  }

  const hwmKb = readRssKb(service.pid, 'VmHWM');
  const hwmText = hwmKb === null ? '—' : fmt(hwmKb / 1024);
  if (hwmKb === null) console.error(`could not read VmHWM of the service (pid ${service.pid}, exit code ${service.child.exitCode}, signal ${service.child.signalCode})`);
  await stopChild(service.child);
  await stopChild(bare.child);
  if (floor) await stopChild(floor.child);
  const serviceOutput = service.laterOutput.filter((line) => !/SIGTERM received|^stopped$/.test(line.trim()));

  const rows = results.map(({ s, m, b, checks }) => [
    s.name,
    s.body,
    s.connections,
    fmt(m.rps),
    fmt(m.p50),
    fmt(m.p99),
    statusText(m),
    fmt(m.peakMb),
    cpuText(m.cpu),
    fmt(b.rps),
    b.rps ? (m.rps / b.rps).toFixed(2) : '—',
    checks.every((c) => c.ok) ? 'ok' : 'FAIL',
  ]);
  const table = markdownTable(['scenario', 'body', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'peak RSS MB', 'CPU % svc/pg/gen/other', 'bare req/s', 'ratio', 'effects'], rows);
  const overallPeak = Math.max(0, ...results.map((r) => r.m.peakMb));

  const get = (name) => results.find((r) => r.s.name === name);
  const targets = [];
  const target = (ok, text) => targets.push(`${ok === null ? 'n/a ' : ok ? 'PASS' : 'FAIL'}  ${text}`);
  const unmatched = get('unmatched');
  const traceStart = get('trace-start');
  const f100 = get('filters-100');
  if (unmatched) target(unmatched.m.rps / unmatched.b.rps >= 0.6, `unmatched: ratio to bare Fastify ${(unmatched.m.rps / unmatched.b.rps).toFixed(2)} (target ≥ 0.6)${unmatched.f ? `; the framework floor alone reaches ${(unmatched.f.rps / unmatched.b.rps).toFixed(2)}` : ''}${noisy(unmatched.m, unmatched.b)}`);
  if (traceStart) {
    target(traceStart.m.rps / traceStart.b.rps >= 0.3, `trace-start: ratio to bare Fastify ${(traceStart.m.rps / traceStart.b.rps).toFixed(2)} (target ≥ 0.3)${noisy(traceStart.m, traceStart.b)}`);
    target(traceStart.m.p99 < 50, `trace-start: p99 ${fmt(traceStart.m.p99)} ms (target < 50 ms)${noisy(traceStart.m)}`);
  }
  if (results.length) target(overallPeak < 300, `peak RSS ${fmt(overallPeak)} MB sampled every 100 ms (VmHWM at the end ${hwmText} MB) (target < 300 MB)`);
  if (unmatched && f100) {
    const backToBack = 1 - f100.m.rps / unmatched.m.rps;
    const cost = filtersCost?.cost ?? backToBack;
    const how = filtersCost
      ? `${fmt(filtersCost.filters)} requests against ${fmt(filtersCost.one)} with one filter, same payload, alternated ${ALTERNATE_SECONDS} s at a time ${ALTERNATIONS} times; back to back above: ${(backToBack * 100).toFixed(1)} %`
      : `${fmt(f100.m.rps)} req/s against ${fmt(unmatched.m.rps)} with one filter (same payload, run back to back)`;
    target(cost < 0.1, `filters-100: costs ${(cost * 100).toFixed(1)} % (target < 10 %): ${how}${noisy(unmatched.m, f100.m)}`);
  }
  target(null, 'scale (1M incidents and API log rows) within 20 %: run `npm run bench -- --scale`');
  const floorLine = unmatched?.f
    ? `Framework floor (\`bench/nest-floor.mjs\`: NestJS on the same Fastify adapter with the same helmet headers, a guard reading the bearer header and a controller answering 202 with what Fastify parsed; no token lookup, filters or database), unmatched payload, right after bare Fastify: ${fmt(unmatched.f.rps)} req/s, ratio ${(unmatched.f.rps / unmatched.b.rps).toFixed(2)} to bare Fastify; the service reaches ${(unmatched.m.rps / unmatched.f.rps).toFixed(2)} of this floor.`
    : null;

  const notes = results.map(({ s }) => `- \`${s.name}\`: ${s.note}`);
  const effects = results.flatMap(({ s, checks }) => checks.map((c) => `- \`${s.name}\` ${c.ok ? 'ok' : '**FAIL**'}: ${c.text}`));
  const legend = `req/s, latencies, non-2xx, peak RSS and CPU are the service's; "ratio" is its req/s over bare Fastify's with the same bodies, measured right after it. CPU % svc/pg/gen/other: share of one core used during the service run by the service, PostgreSQL (all its processes), the load generator (this script) and every other process on the machine; ${os.cpus().length} cores = ${os.cpus().length * 100} %. The load generator and the target share this machine's cores, so bare Fastify's req/s is this machine's ceiling, not Fastify's; a target run while "other" is high is marked UNRELIABLE.`;
  console.log(`\n${table}\n\n${legend}\nPeak RSS of the service: ${fmt(overallPeak)} MB (sampled), VmHWM ${hwmText} MB\n${floorLine ? `\n${floorLine}\n` : ''}\nTargets (figures move ±40 % between runs on this machine: compare ratios within one run)\n${targets.map((l) => `  ${l}`).join('\n')}`);
  if (serviceOutput.length) {
    console.log(`\nThe service printed ${serviceOutput.length} line(s) during the run (LOG_LEVEL=warn); the first ones:\n${serviceOutput.slice(0, 40).map((l) => `  | ${l}`).join('\n')}`);
  }

  let profileText = null;
  if (profileDir) {
    const profiled = results.find((r) => r.s.name === 'trace-start') ?? results[0];
    const summary = summariseProfile(profileDir, profiled?.m.window, profiled ? `${profiled.s.name} (${fmt(profiled.m.rps)} req/s)` : '');
    profileText = summary.text;
    console.log(`\n${profileText}`);
    if (summary.file) {
      // Kept for a closer look (Chrome DevTools, Performance panel); git-ignored.
      copyFileSync(summary.file, join(ROOT, 'bench', 'last.cpuprofile'));
      if (profiled?.m.window) writeFileSync(join(ROOT, 'bench', 'last.cpuprofile.window'), JSON.stringify(profiled.m.window));
      console.log('The whole profile is kept in bench/last.cpuprofile.');
    }
  }

  const header = [
    `Run ${new Date().toISOString()} on ${machineLine()}`,
    `Command: \`${commandLine()}\`; ${opts.duration} s per scenario, each against the service (built, \`node dist/src/main.js\`, PostgreSQL embedded on the same machine) and then against a bare Fastify server (\`bench/bare-server.mjs\`: parses the JSON, answers 202) with the same bodies.`,
  ];
  const markdown = [
    `# Intake benchmark${opts.profile ? ' (profiled run)' : ''}`,
    '',
    ...header.map((l) => `${l}  `),
    '',
    table,
    '',
    legend,
    '',
    `Peak RSS of the service: ${fmt(overallPeak)} MB (sampled every 100 ms), VmHWM ${hwmText} MB.`,
    '',
    ...(floorLine ? [floorLine, ''] : []),
    '## Targets',
    '',
    '```',
    ...targets,
    '```',
    '',
    '## Scenarios',
    '',
    ...notes,
    '',
    '## Effects checked in the database',
    '',
    ...effects,
    '',
    ...(profileText ? ['## CPU profile', '', profileText, ''] : []),
  ].join('\n');
  const file = join(ROOT, 'bench', opts.profile ? 'profile.md' : 'results.md');
  writeFileSync(file, markdown);
  console.log(`\nWritten to ${file.replace(`${ROOT}/`, '')}`);
  return !failed;
}

/** The scale run: trace-start (and debug) on an empty database, then with 1M incidents and 1M log rows. */
async function scaleRun(opts) {
  console.log('Starting PostgreSQL (embedded, temporary directory)…');
  const serverUrl = await startPostgres();
  const databaseUrl = await createDatabase(serverUrl, 'intake_bench_scale');
  const service = await startService(databaseUrl, null);
  console.log(`  service ${service.url} (pid ${service.pid})`);
  const all = scenarios(opts);
  const chosen = ['trace-start', 'debug'].map((name) => all.find((s) => s.name === name));
  for (const s of chosen) Object.assign(s, await s.setup(service.api));
  const db = await connect(databaseUrl);
  let failed = false;
  const phases = { empty: {}, scale: {} };
  let insertText = '';
  try {
    console.log(`Warming up (${opts.quick ? 1 : 2} s)…`);
    await warmUp(service, null, opts);
    for (const phase of ['empty', 'scale']) {
      if (phase === 'scale') {
        const traceStart = chosen[0];
        const debug = chosen[1];
        const { rows: [filter] } = await db.query(`select id from filters where token_id = $1`, [traceStart.tokenId]);
        console.log('Inserting 1,000,000 resolved incidents and 1,000,000 API log rows…');
        let started = Date.now();
        await db.query(
          `insert into incidents (id, token_id, filter_id, title, description, mapped_value, status, trigger_count, created_at, last_triggered_at, resolved_at, resolved_by)
           select gen_random_uuid(), $1, $2, 'post /api/checkout', '1200', 'bulk' || lpad(to_hex(g), 28, '0'), 'resolved', 1,
                  now() - g * interval '2 seconds', now() - g * interval '2 seconds', now() - g * interval '2 seconds' + interval '1 minute', 'filter'
           from generate_series(1, 1000000) g`,
          [traceStart.tokenId, filter.id],
        );
        const incidentsMs = Date.now() - started;
        started = Date.now();
        const sample = span('0000000000000000', 'running').replace('"traceId":"0000000000000000"', '"traceId":"\' || lpad(to_hex(g), 32, \'0\') || \'"');
        await db.query(
          `insert into api_log (id, token_id, received_at, method, path, status_code, headers, body_kind, body, outcome, error)
           select gen_random_uuid(), $1, now() - g * interval '1 second', 'POST', '/v1/trace', 202,
                  '{"content-type":"application/json","user-agent":"zipkin-reporter"}'::jsonb, 'json', '${sample}',
                  '[{"index":0,"filters":[{"filterId":"00000000-0000-0000-0000-000000000000","filterName":null,"action":"created","incidentId":null}]}]'::jsonb, null
           from generate_series(1, 1000000) g`,
          [debug.tokenId],
        );
        const logMs = Date.now() - started;
        started = Date.now();
        await db.query('vacuum analyze incidents, api_log');
        const vacuumMs = Date.now() - started;
        insertText = `inserted 1,000,000 incidents in ${fmt(incidentsMs / 1000, 1)} s and 1,000,000 API log rows in ${fmt(logMs / 1000, 1)} s (one insert … select from generate_series each), then vacuum analyze in ${fmt(vacuumMs / 1000, 1)} s`;
        console.log(`  ${insertText}`);
      }
      for (const s of chosen) {
        process.stdout.write(`${`${s.name} (${phase})`.padEnd(22)} ${opts.duration} s, ${s.connections} connections… `);
        const m = await measure(service, s, opts, { check: true, secret: s.secret });
        await settle(db, s.tokenId, m.tracker.since);
        const checks = await s.verify(db, s, m.tracker);
        checks.push(...answerChecks(m));
        console.log(`${fmt(m.rps)} req/s, p99 ${fmt(m.p99)} ms`);
        for (const c of checks) console.log(`    ${c.ok ? 'ok  ' : 'FAIL'} ${c.text}`);
        if (checks.some((c) => !c.ok)) failed = true;
        phases[phase][s.name] = { m, checks };
      }
    }
  } finally {
    await db.end().catch(() => undefined);
  }
  await stopChild(service.child);

  const rows = [];
  for (const s of chosen) {
    for (const phase of ['empty', 'scale']) {
      const { m, checks } = phases[phase][s.name];
      const ratio = phase === 'scale' ? (m.rps / phases.empty[s.name].m.rps).toFixed(2) : '1.00';
      rows.push([`${s.name} (${phase === 'empty' ? 'empty database' : '+1M incidents, +1M log rows'})`, s.connections, fmt(m.rps), fmt(m.p50), fmt(m.p99), statusText(m), fmt(m.peakMb), cpuText(m.cpu), ratio, checks.every((c) => c.ok) ? 'ok' : 'FAIL']);
    }
  }
  const table = markdownTable(['scenario', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'peak RSS MB', 'CPU % svc/pg/gen/other', 'scale/empty', 'effects'], rows);
  const ratio = phases.scale['trace-start'].m.rps / phases.empty['trace-start'].m.rps;
  const targets = [`${ratio >= 0.8 ? 'PASS' : 'FAIL'}  scale: trace-start with 1M incidents and 1M API log rows runs at ${ratio.toFixed(2)} × the empty database (target within 20 %: ≥ 0.80)${noisy(phases.empty['trace-start'].m, phases.scale['trace-start'].m)}`];
  console.log(`\n${table}\n\n${insertText}\n\nTargets\n${targets.map((l) => `  ${l}`).join('\n')}`);
  const markdown = [
    '# Intake benchmark: scale run',
    '',
    `Run ${new Date().toISOString()} on ${machineLine()}  `,
    `Command: \`${commandLine()}\`; ${opts.duration} s per measurement. The 1M incidents belong to the trace-start token and filter (resolved); the 1M API log rows to the debug token.`,
    '',
    table,
    '',
    insertText,
    '',
    '```',
    ...targets,
    '```',
    '',
  ].join('\n');
  const file = join(ROOT, 'bench', 'results-scale.md');
  writeFileSync(file, markdown);
  console.log(`\nWritten to ${file.replace(`${ROOT}/`, '')}`);
  return !failed;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` (npm run bench does it first)`);
  const started = Date.now();
  const ok = opts.scale ? await scaleRun(opts) : await mainRun(opts);
  await cleanUp();
  console.log(`\nBench finished in ${fmt((Date.now() - started) / 1000)} s${ok ? '' : ': an effect was lost or a scenario failed (see FAIL above)'}`);
  return ok;
}

main().then(
  (ok) => process.exit(cleanup.interrupted ? 130 : ok ? 0 : 1),
  async (error) => {
    if (!cleanup.interrupted) console.error(`\nbench failed: ${error?.stack ?? error}`);
    await cleanUp().catch(() => undefined);
    process.exit(cleanup.interrupted ? 130 : 1);
  },
);
