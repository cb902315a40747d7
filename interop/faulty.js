#!/usr/bin/env node
'use strict';
// A scripted current-revision (seed 001) plugin for client retry tests: each RPC answers the codes of its
// script in order, then OK (valid responses: resync ready, info with last_sync_time). No state, no checks.
// Every call is recorded in --calls-file (rpc, time, code, secret keys only) so a test can count calls
// and measure the gaps between them.
//
//   node faulty.js --listen unix:///tmp/f.sock --calls-file /tmp/f.json \
//       --script EnableVolumeReplication=ABORTED*3 --script PromoteVolume=FAILED_PRECONDITION
const { grpc, current } = require('./lib/protos');
const { parseArgs, status, CallLog, unary, serve, lenientService } = require('./lib/common');
const { nowTimestamp } = require('./lib/controller');

const USAGE = `usage: node faulty.js --listen unix:///path.sock [--calls-file FILE] [--script RPC=CODE[*N][,CODE[*N]]...]...
codes: gRPC status names (ABORTED, UNAVAILABLE, FAILED_PRECONDITION, UNIMPLEMENTED, ...); OK allowed in a script`;

const RESPONSES = {
  EnableVolumeReplication: () => ({}),
  DisableVolumeReplication: () => ({}),
  PromoteVolume: () => ({}),
  DemoteVolume: () => ({}),
  ResyncVolume: () => ({ ready: true }),
  GetVolumeReplicationInfo: () => ({ last_sync_time: nowTimestamp(), last_sync_duration: { seconds: 2, nanos: 0 }, last_sync_bytes: 4096 }),
};

/** "ABORTED*3,OK" -> ['ABORTED','ABORTED','ABORTED','OK'] */
function expand(script) {
  return script.split(',').flatMap((part) => {
    const [code, times] = part.split('*');
    if (code !== 'OK' && grpc.status[code] === undefined) throw new Error('unknown code ' + code);
    return Array(Number(times || 1)).fill(code);
  });
}

function main() {
  const args = parseArgs(process.argv.slice(2), { repeatable: ['script'], booleans: ['help', 'quiet'] });
  if (args.help || !args.listen) { console.log(USAGE); process.exit(args.help ? 0 : 2); }
  const scripts = {};
  for (const s of args.script) {
    const [rpc, codes] = s.split('=');
    if (!RESPONSES[rpc]) throw new Error('unknown RPC ' + rpc);
    scripts[rpc] = expand(codes);
  }
  const log = new CallLog(args['calls-file'], args.quiet);
  const describe = (req) => {
    const rs = req.replication_source;
    if (rs && rs.type) return rs.type + ' ' + Object.values(rs[rs.type])[0];
    return req.volume_id ? 'volume_id ' + req.volume_id : '(no source)';
  };
  const handlers = {};
  for (const rpc of Object.keys(RESPONSES)) {
    handlers[rpc] = unary(rpc, log, async () => {
      const next = (scripts[rpc] || []).shift();
      if (next && next !== 'OK') throw status(next, `scripted ${next} for ${rpc}`);
      return RESPONSES[rpc]();
    }, describe);
  }
  const server = new grpc.Server();
  server.addService(lenientService(current().package.replication.Controller.service), handlers);
  serve(server, args.listen);
}

main();
