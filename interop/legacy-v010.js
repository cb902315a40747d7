#!/usr/bin/env node
'use strict';
// A replication plugin of the first revision (seed 000, v0.1.0 era), from the seed only: five RPCs (no
// GetVolumeReplicationInfo: calling it answers UNIMPLEMENTED), `volume_id` REQUIRED and the only way to
// name a source (no ReplicationSource, so no groups). Same semantics and fixtures as plugin.js.
const { grpc, v010 } = require('./lib/protos');
const { parseArgs, keyValues, status, checkString, CallLog, serve, lenientService } = require('./lib/common');
const { makeController, makeFixtures } = require('./lib/controller');

const USAGE = 'usage: node legacy-v010.js --listen unix:///path.sock [--volumes N] [--secret K=V]... [--calls-file FILE] [--quiet]';

function sourceOf(req) {
  if (!req.volume_id) throw status('INVALID_ARGUMENT', 'volume_id is required');
  checkString('volume_id', req.volume_id);
  return { kind: 'volume', id: req.volume_id };
}

function main() {
  const args = parseArgs(process.argv.slice(2), { repeatable: ['secret'], booleans: ['quiet', 'help'] });
  if (args.help || !args.listen) { console.log(USAGE); process.exit(args.help ? 0 : 2); }
  const server = new grpc.Server();
  server.addService(lenientService(v010().package.replication.Controller.service), makeController({
    sourceOf, sources: makeFixtures(Number(args.volumes || 16), 0),
    requiredSecrets: keyValues(args.secret), latencyMs: Number(args.latency || 20),
    log: new CallLog(args['calls-file'], args.quiet),
    rpcs: ['EnableVolumeReplication', 'DisableVolumeReplication', 'PromoteVolume', 'DemoteVolume', 'ResyncVolume'],
  }));
  serve(server, args.listen);
}

main();
