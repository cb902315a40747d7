'use strict';
// Small helpers shared by the Node peers: argument parsing, status errors, CSI size limits, serving on a
// unix socket, and a call log the Java tests read to count calls.
const fs = require('fs');
const { grpc } = require('./protos');

const CSI_MAX_STRING_BYTES = 128;
const CSI_MAX_MAP_BYTES = 4096;

/** `--key value` / `--key=value` flags; repeated flags collect into arrays when `repeatable` names them. */
function parseArgs(argv, { repeatable = [], booleans = [] } = {}) {
  const out = { _: [] };
  for (const key of repeatable) out[key] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) { out._.push(arg); continue; }
    let [key, value] = arg.slice(2).split(/=(.*)/s);
    if (booleans.includes(key)) { out[key] = true; continue; }
    if (value === undefined) value = argv[++i];
    if (value === undefined) throw new Error('missing value for --' + key);
    if (repeatable.includes(key)) out[key].push(value); else out[key] = value;
  }
  return out;
}

/** K=V strings to an object. */
function keyValues(list) {
  const map = {};
  for (const kv of list) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new Error('expected K=V, got ' + kv);
    map[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return map;
}

/** An error a grpc-js handler passes to its callback to answer `code` (a grpc.status name). */
function status(code, details) {
  const err = new Error(details);
  err.code = grpc.status[code];
  err.details = details;
  return err;
}

function bytes(s) { return Buffer.byteLength(s || '', 'utf8'); }
function mapBytes(m) { return Object.entries(m || {}).reduce((n, [k, v]) => n + bytes(k) + bytes(v), 0); }

/** Throws INVALID_ARGUMENT when a string is over CSI's 128-byte limit. */
function checkString(field, value) {
  if (bytes(value) > CSI_MAX_STRING_BYTES) throw status('INVALID_ARGUMENT', `${field} exceeds ${CSI_MAX_STRING_BYTES} bytes`);
}

/** Throws INVALID_ARGUMENT when a map is over CSI's 4 KiB limit. */
function checkMap(field, value) {
  if (mapBytes(value) > CSI_MAX_MAP_BYTES) throw status('INVALID_ARGUMENT', `${field} exceeds ${CSI_MAX_MAP_BYTES} bytes`);
}

/** Throws UNAUTHENTICATED unless `given` carries every required secret with its value. */
function checkSecrets(required, given) {
  for (const [k, v] of Object.entries(required)) {
    if (!given || given[k] !== v) throw status('UNAUTHENTICATED', `secret ${k} is missing or wrong`);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Records every call (rpc, time, code, secret keys only) and rewrites `file` as JSON after each, so a test can
 * count calls and measure the gaps between them. Without a file it only prints one line per call.
 */
class CallLog {
  constructor(file, quiet = false) { this.file = file; this.quiet = quiet; this.calls = []; }
  record(rpc, source, code, request) {
    const entry = { rpc, source, code, atMs: Date.now(), secretKeys: Object.keys((request && request.secrets) || {}).sort() };
    // Only when true, so entries of the existing tests keep their shape.
    if (request && request.force === true) entry.force = true;
    if (request && request[RESERVED_FIELD_1]) entry.reservedField1 = true;
    this.calls.push(entry);
    if (!this.quiet) console.log(`call ${rpc} ${source} -> ${code}`);
    if (this.file) {
      const counts = {};
      for (const c of this.calls) counts[c.rpc] = (counts[c.rpc] || 0) + 1;
      fs.writeFileSync(this.file + '.tmp', JSON.stringify({ counts, calls: this.calls }, null, 1));
      fs.renameSync(this.file + '.tmp', this.file);
    }
  }
}

/**
 * Wraps an async `(request) => response` into a grpc-js unary handler that logs the call and turns thrown
 * status errors into answers; any other exception answers UNKNOWN (the spec's code for the unexpected).
 */
function unary(rpc, log, fn, describeSource) {
  return (call, callback) => {
    Promise.resolve().then(() => {
      if (call.request === MALFORMED) throw status('INVALID_ARGUMENT', 'the request bytes are not a valid ' + rpc + ' request');
      return fn(call.request);
    }).then(
      (response) => { log.record(rpc, describeSource(call.request), 'OK', call.request); callback(null, response); },
      (err) => {
        if (typeof err.code !== 'number') { err = status('UNKNOWN', 'unexpected: ' + err.message); }
        const name = Object.keys(grpc.status).find((k) => grpc.status[k] === err.code);
        log.record(rpc, describeSource(call.request), name, call.request);
        callback(err);
      });
  };
}

// grpc-js answers INTERNAL when a request cannot be parsed; the spec's row for a bad request is
// INVALID_ARGUMENT, so the peers parse leniently and let the handler answer that.
const MALFORMED = Object.freeze({ malformed: true });
// Marks a request whose bytes carried field 1 where its revision has none (upstream reserves it): the
// parser drops such a field as unknown, so the call log is the only place a test can see it was sent.
const RESERVED_FIELD_1 = Symbol('reservedField1');
function lenientService(service) {
  const out = {};
  for (const [name, method] of Object.entries(service)) {
    const fieldNumbers = ((method.requestType && method.requestType.type && method.requestType.type.field) || []).map((f) => f.number);
    const watchField1 = !fieldNumbers.includes(1);
    out[name] = { ...method, requestDeserialize: (bytes) => {
      let request;
      try { request = method.requestDeserialize(bytes); } catch (e) { return MALFORMED; }
      if (watchField1 && topLevelFields(bytes).has(1)) request[RESERVED_FIELD_1] = true;
      return request;
    } };
  }
  return out;
}

/** The field numbers at the top level of a protobuf message (bytes already known to parse). */
function topLevelFields(bytes) {
  const numbers = new Set();
  let i = 0;
  const varint = () => { let v = 0n; let shift = 0n; for (;;) { const b = bytes[i++]; v |= BigInt(b & 0x7f) << shift; if (!(b & 0x80)) return v; shift += 7n; } };
  try {
    while (i < bytes.length) {
      const tag = varint();
      numbers.add(Number(tag >> 3n));
      switch (Number(tag & 7n)) {
        case 0: varint(); break;
        case 1: i += 8; break;
        case 2: { const length = Number(varint()); i += length; break; } // not `i += varint()`: that reads i first
        case 5: i += 4; break;
        default: return numbers; // groups: not in these protos
      }
    }
  } catch (e) { /* parsed already; nothing more to learn */ }
  return numbers;
}

/** Binds `server` to `listen` (unix:///path or host:port), prints "listening on ...", stops on SIGTERM/SIGINT. */
function serve(server, listen) {
  const socketPath = listen.startsWith('unix://') ? listen.replace(/^unix:\/\//, '') : null;
  if (socketPath && fs.existsSync(socketPath)) fs.unlinkSync(socketPath);
  server.bindAsync(listen, grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) { console.error('cannot listen on ' + listen + ': ' + err.message); process.exit(2); }
    console.log('listening on ' + (socketPath ? listen : 'port ' + port));
  });
  const stop = () => server.tryShutdown(() => {
    if (socketPath && fs.existsSync(socketPath)) fs.unlinkSync(socketPath);
    process.exit(0);
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

module.exports = { parseArgs, keyValues, status, bytes, mapBytes, checkString, checkMap, checkSecrets, sleep, CallLog, unary, serve, lenientService, RESERVED_FIELD_1, CSI_MAX_STRING_BYTES, CSI_MAX_MAP_BYTES };
