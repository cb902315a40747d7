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
function lenientService(service) {
  const out = {};
  for (const [name, method] of Object.entries(service)) {
    out[name] = { ...method, requestDeserialize: (bytes) => { try { return method.requestDeserialize(bytes); } catch (e) { return MALFORMED; } } };
  }
  return out;
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

module.exports = { parseArgs, keyValues, status, bytes, mapBytes, checkString, checkMap, checkSecrets, sleep, CallLog, unary, serve, lenientService, CSI_MAX_STRING_BYTES, CSI_MAX_MAP_BYTES };
