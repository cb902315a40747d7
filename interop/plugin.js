#!/usr/bin/env node
'use strict';
// A correct current-revision (seed 001) replication plugin with the NodeHealer (seed 002) on one socket,
// written from the spec documents only. `--defect NAME` makes it carry exactly one spec defect.
const { grpc, current, healer } = require('./lib/protos');
const { parseArgs, keyValues, status, checkString, checkMap, checkSecrets, CallLog, unary, serve, lenientService } = require('./lib/common');
const { makeController, makeFixtures, nowTimestamp, CONTROLLER_DEFECTS } = require('./lib/controller');

const HEALER_DEFECTS = ['healer-accepts-relative-staging', 'healer-empty-message', 'healer-accepts-missing-path',
  'healer-found-everything'];

const USAGE = `usage: node plugin.js --listen unix:///path.sock [--volumes N] [--groups M] [--secret K=V]...
        [--abnormal-volume ID]... [--latency MS] [--calls-file FILE] [--defect NAME] [--quiet]
defects: ${CONTROLLER_DEFECTS.concat(HEALER_DEFECTS).join(', ')}`;

/** The current revision's source: replication_source (volume = 1, volumegroup = 2, volumesnapshot = 3), or the deprecated volume_id alone. */
function sourceOf(req) {
  const rs = req.replication_source;
  if (rs) {
    let source;
    switch (rs.type) {
      case 'volume': source = { kind: 'volume', id: rs.volume.volume_id, field: 'replication_source.volume.volume_id' }; break;
      case 'volumegroup': source = { kind: 'volumegroup', id: rs.volumegroup.volume_group_id, field: 'replication_source.volumegroup.volume_group_id' }; break;
      case 'volumesnapshot': source = { kind: 'volumesnapshot', id: rs.volumesnapshot.volume_snapshot_id, field: 'replication_source.volumesnapshot.volume_snapshot_id' }; break;
      default: throw status('INVALID_ARGUMENT', 'replication_source names no source type');
    }
    if (!source.id) throw status('INVALID_ARGUMENT', source.field + ' is required');
    checkString(source.field, source.id);
    if (req.volume_id && (source.kind !== 'volume' || source.id !== req.volume_id)) {
      throw status('INVALID_ARGUMENT', 'volume_id disagrees with replication_source');
    }
    return source;
  }
  if (req.volume_id) {
    checkString('volume_id', req.volume_id);
    return { kind: 'volume', id: req.volume_id };
  }
  throw status('INVALID_ARGUMENT', 'replication_source is required');
}

function infoResponseFor(defect) {
  return () => ({
    last_sync_time: defect === 'info-without-last-sync-time' ? null : nowTimestamp(),
    last_sync_duration: { seconds: 1, nanos: 500000000 },
    last_sync_bytes: defect === 'negative-bytes' ? -1 : 1048576,
  });
}

/** NodeHealer: volume_id and volume_path REQUIRED; staging_target_path absolute when given; paths exempt from 128 bytes. */
function nodeHealer({ volumes, abnormal, requiredSecrets, defect, log }) {
  return unary('NodeHealer', log, async (req) => {
    if (!req.volume_id) throw status('INVALID_ARGUMENT', 'volume_id is required');
    checkString('volume_id', req.volume_id);
    if (!req.volume_path && defect !== 'healer-accepts-missing-path') throw status('INVALID_ARGUMENT', 'volume_path is required');
    if (req.staging_target_path && !req.staging_target_path.startsWith('/') && defect !== 'healer-accepts-relative-staging') {
      throw status('INVALID_ARGUMENT', 'staging_target_path must be absolute');
    }
    checkMap('secrets', req.secrets);
    checkMap('volume_context', req.volume_context);
    checkSecrets(requiredSecrets, req.secrets);
    const exists = /^vol-\d+$/.test(req.volume_id) && Number(req.volume_id.slice(4)) < volumes;
    if (!exists && defect !== 'healer-found-everything') throw status('NOT_FOUND', 'volume ' + req.volume_id + ' does not exist');
    const sick = abnormal.includes(req.volume_id);
    if (defect === 'healer-empty-message') return { abnormal: sick, message: '' };
    return { abnormal: sick, message: sick ? 'volume ' + req.volume_id + ' has I/O errors' : 'volume ' + req.volume_id + ' is healthy' };
  }, (req) => 'volume ' + (req.volume_id || '(none)'));
}

function main() {
  const args = parseArgs(process.argv.slice(2), { repeatable: ['secret', 'abnormal-volume'], booleans: ['quiet', 'help'] });
  if (args.help || !args.listen) { console.log(USAGE); process.exit(args.help ? 0 : 2); }
  const defect = args.defect;
  if (defect && !CONTROLLER_DEFECTS.includes(defect) && !HEALER_DEFECTS.includes(defect)) {
    console.error('unknown defect ' + defect + '\n' + USAGE);
    process.exit(2);
  }
  const volumes = Number(args.volumes || 16);
  const groups = Number(args.groups || 2);
  const requiredSecrets = keyValues(args.secret);
  const log = new CallLog(args['calls-file'], args.quiet);

  const server = new grpc.Server();
  server.addService(lenientService(current().package.replication.Controller.service), makeController({
    sourceOf, sources: makeFixtures(volumes, groups), requiredSecrets, latencyMs: Number(args.latency || 20), log, defect,
    infoResponse: infoResponseFor(defect),
    rpcs: ['EnableVolumeReplication', 'DisableVolumeReplication', 'PromoteVolume', 'DemoteVolume', 'ResyncVolume', 'GetVolumeReplicationInfo'],
  }));
  server.addService(lenientService(healer().package.healer.HealerNode.service), {
    NodeHealer: nodeHealer({ volumes, abnormal: args['abnormal-volume'], requiredSecrets, defect, log }),
  });
  serve(server, args.listen);
  if (defect) console.log('carrying defect ' + defect);
}

main();
