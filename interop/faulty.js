#!/usr/bin/env node
'use strict';
// A scripted plugin for client retry tests: each RPC answers the codes of its script in order, then OK
// (valid responses: resync ready, info with last_sync_time). No state, no checks. Every call is recorded in
// --calls-file (rpc, time, code, secret keys only) so a test can count calls and measure the gaps between them.
// The current revision (seed 001) by default; `--revision upstream-2026` adds the seventh RPC (OK answers the
// source's destination: --destination-prefix + id, a group with its --group-members), info with status
// HEALTHY, and Identity.
//
//   node faulty.js --listen unix:///tmp/f.sock --calls-file /tmp/f.json \
//       --script EnableVolumeReplication=ABORTED*3 --script PromoteVolume=FAILED_PRECONDITION
//   node faulty.js --revision upstream-2026 --listen unix:///tmp/f.sock --destination-prefix b- \
//       --script GetReplicationDestinationInfo=UNAVAILABLE*2
const { grpc, current, upstream2026, identity } = require('./lib/protos');
const { parseArgs, status, CallLog, unary, serve, lenientService } = require('./lib/common');
const { nowTimestamp } = require('./lib/controller');
const { parseMembers, destinationIdOf, destinationResponseFor, identityHandlers } = require('./lib/upstream');

const USAGE = `usage: node faulty.js --listen unix:///path.sock [--calls-file FILE] [--script RPC=CODE[*N][,CODE[*N]]...]...
        [--revision current|upstream-2026] [--destination-prefix P] [--group-members GROUP=VOL,VOL]...
codes: gRPC status names (ABORTED, UNAVAILABLE, FAILED_PRECONDITION, UNIMPLEMENTED, ...); OK allowed in a script
RPCs: the six of the current revision; GetReplicationDestinationInfo with --revision upstream-2026`;

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

/** The upstream-2026 additions: info with its REQUIRED status, the seventh RPC answering the request's source. */
function upstreamResponses(args) {
  const destination = destinationResponseFor({
    destinationId: destinationIdOf({ destinationPrefix: args['destination-prefix'] }), members: parseMembers(args['group-members']),
  });
  return {
    ...RESPONSES,
    GetVolumeReplicationInfo: () => ({ ...RESPONSES.GetVolumeReplicationInfo(), status: 'HEALTHY' }),
    GetReplicationDestinationInfo: (req) => {
      const rs = req.replication_source;
      if (rs && rs.type === 'volume') return destination({ kind: 'volume', id: rs.volume.volume_id });
      if (rs && rs.type === 'volumegroup') return destination({ kind: 'volumegroup', id: rs.volumegroup.volume_group_id });
      throw status('INVALID_ARGUMENT', 'replication_source is required');
    },
  };
}

function main() {
  const args = parseArgs(process.argv.slice(2), { repeatable: ['script', 'group-members'], booleans: ['help', 'quiet'] });
  if (args.help || !args.listen) { console.log(USAGE); process.exit(args.help ? 0 : 2); }
  const revision = args.revision || 'current';
  if (revision !== 'current' && revision !== 'upstream-2026') throw new Error('unknown revision ' + revision);
  const upstream = revision === 'upstream-2026';
  const responses = upstream ? upstreamResponses(args) : RESPONSES;
  const scripts = {};
  for (const s of args.script) {
    const [rpc, codes] = s.split('=');
    if (!responses[rpc]) throw new Error('unknown RPC ' + rpc + (upstream ? '' : ' (GetReplicationDestinationInfo needs --revision upstream-2026)'));
    scripts[rpc] = expand(codes);
  }
  const log = new CallLog(args['calls-file'], args.quiet);
  const describe = (req) => {
    const rs = req.replication_source;
    if (rs && rs.type) return rs.type + ' ' + Object.values(rs[rs.type])[0];
    return req.volume_id ? 'volume_id ' + req.volume_id : '(no source)';
  };
  const handlers = {};
  for (const rpc of Object.keys(responses)) {
    handlers[rpc] = unary(rpc, log, async (req) => {
      const next = (scripts[rpc] || []).shift();
      if (next && next !== 'OK') throw status(next, `scripted ${next} for ${rpc}`);
      return responses[rpc](req);
    }, describe);
  }
  const server = new grpc.Server();
  server.addService(lenientService((upstream ? upstream2026() : current()).package.replication.Controller.service), handlers);
  if (upstream) server.addService(lenientService(identity().package.identity.Identity.service), identityHandlers({ name: 'faulty.interop.volrep.io', log }));
  serve(server, args.listen);
}

main();
