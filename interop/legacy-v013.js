#!/usr/bin/env node
'use strict';
// A replication plugin of the v0.1.3 revision (seed 003), from the seed only: `volume_id` is REQUIRED;
// `replication_source` is optional and its oneof is numbered volumegroup = 1, volume = 2 (the reverse of
// the current revision); GetVolumeReplicationInfoResponse has only last_sync_time. Same semantics and
// fixtures as plugin.js.
const { grpc, v013 } = require('./lib/protos');
const { parseArgs, keyValues, status, checkString, CallLog, serve, lenientService } = require('./lib/common');
const { makeController, makeFixtures, nowTimestamp } = require('./lib/controller');

const USAGE = 'usage: node legacy-v013.js --listen unix:///path.sock [--volumes N] [--groups M] [--secret K=V]... [--calls-file FILE] [--quiet]';

function sourceOf(req) {
  if (!req.volume_id) throw status('INVALID_ARGUMENT', 'volume_id is required');
  checkString('volume_id', req.volume_id);
  const rs = req.replication_source;
  if (rs && rs.type === 'volumegroup') {
    const id = rs.volumegroup.volume_group_id;
    if (!id) throw status('INVALID_ARGUMENT', 'replication_source.volumegroup.volume_group_id is required');
    checkString('replication_source.volumegroup.volume_group_id', id);
    return { kind: 'volumegroup', id };
  }
  if (rs && rs.type === 'volume' && rs.volume.volume_id !== req.volume_id) {
    throw status('INVALID_ARGUMENT', 'replication_source.volume.volume_id disagrees with volume_id');
  }
  return { kind: 'volume', id: req.volume_id };
}

function main() {
  const args = parseArgs(process.argv.slice(2), { repeatable: ['secret'], booleans: ['quiet', 'help'] });
  if (args.help || !args.listen) { console.log(USAGE); process.exit(args.help ? 0 : 2); }
  const server = new grpc.Server();
  server.addService(lenientService(v013().package.replication.Controller.service), makeController({
    sourceOf, sources: makeFixtures(Number(args.volumes || 16), Number(args.groups || 2)),
    requiredSecrets: keyValues(args.secret), latencyMs: Number(args.latency || 20),
    log: new CallLog(args['calls-file'], args.quiet),
    infoResponse: () => ({ last_sync_time: nowTimestamp() }),
    rpcs: ['EnableVolumeReplication', 'DisableVolumeReplication', 'PromoteVolume', 'DemoteVolume', 'ResyncVolume', 'GetVolumeReplicationInfo'],
  }));
  serve(server, args.listen);
}

main();
