#!/usr/bin/env node
'use strict';
// A correct replication plugin with the NodeHealer (seed 002) on one socket, written from the spec documents
// only: the current revision (seed 001) by default, or with `--revision upstream-2026` upstream's 2026 form
// (health status, GetReplicationDestinationInfo, Identity). `--defect NAME` makes it carry exactly one spec
// defect. Two of them with different prefixes are the two sites of a failover (see README.md).
const { grpc, current, upstream2026, healer, identity, volumegroup } = require('./lib/protos');
const { parseArgs, keyValues, status, checkString, checkMap, checkSecrets, CallLog, unary, serve, lenientService } = require('./lib/common');
const { makeController, makeFixtures, fresh, nowTimestamp, CONTROLLER_DEFECTS } = require('./lib/controller');
const { makeVolumeGroups, CAPABILITIES: VOLUME_GROUP_CAPABILITIES } = require('./lib/volumegroup');
const { UPSTREAM_DEFECTS, parseMembers, destinationIdOf, destinationResponseFor, withHealth, identityHandlers, peerGuard } = require('./lib/upstream');

const HEALER_DEFECTS = ['healer-accepts-relative-staging', 'healer-empty-message', 'healer-accepts-missing-path',
  'healer-found-everything'];

const USAGE = `usage: node plugin.js --listen unix:///path.sock [--revision current|upstream-2026] [--volumes N] [--groups M]
        [--secret K=V]... [--abnormal-volume ID]... [--latency MS] [--calls-file FILE] [--defect NAME] [--quiet]
  site (both revisions):
        [--volume-prefix P (vol-)] [--group-prefix P (grp-)] [--start-as disabled|secondary|primary (disabled)]
        [--peer URI [--peer-secret K=V]...]   promote without force asks the peer first (see README.md)
        [--demotion-window-ms N]   with --peer: promotes without force refused for N ms once the peer is seen demoted
        [--first-sync-delay-ms N]  info answers NOT_FOUND for N ms after an enable or a promote
  upstream-2026 only:
        [--destination-prefix P] [--destination-strip-prefix P] [--group-members GROUP=VOL,VOL]...
        [--degraded-volume ID]... [--error-volume ID]... [--unknown-volume ID]...
        [--destination-unavailable-calls N] [--name PLUGIN_NAME]
        [--cannot-group-code FAILED_PRECONDITION|PERMISSION_DENIED]   volumegroup.Controller (see README.md)
defects (both revisions): ${CONTROLLER_DEFECTS.concat(HEALER_DEFECTS).join(', ')}
defects (upstream-2026):
${Object.entries(UPSTREAM_DEFECTS).map(([name, what]) => '  ' + name.padEnd(32) + what).join('\n')}`;

/**
 * The current revision's source: replication_source (volume = 1, volumegroup = 2, volumesnapshot = 3), or the
 * deprecated volume_id alone. Under upstream-2026 the same function serves: that revision's parser never yields
 * volume_id (field 1 reserved) nor volumesnapshot (not in its oneof), so such a request names no source.
 */
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
  return (source) => ({
    last_sync_time: defect === 'info-without-last-sync-time' ? null : nowTimestamp(),
    last_sync_duration: { seconds: 1, nanos: 500000000 },
    last_sync_bytes: defect === 'negative-bytes' ? -1 : 1048576,
  });
}

/** NodeHealer: volume_id and volume_path REQUIRED; staging_target_path absolute when given; paths exempt from 128 bytes. */
function nodeHealer({ sources, abnormal, requiredSecrets, defect, log }) {
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
    const exists = sources.has('volume/' + req.volume_id);
    if (!exists && defect !== 'healer-found-everything') throw status('NOT_FOUND', 'volume ' + req.volume_id + ' does not exist');
    const sick = abnormal.includes(req.volume_id);
    if (defect === 'healer-empty-message') return { abnormal: sick, message: '' };
    return { abnormal: sick, message: sick ? 'volume ' + req.volume_id + ' has I/O errors' : 'volume ' + req.volume_id + ' is healthy' };
  }, (req) => 'volume ' + (req.volume_id || '(none)'));
}

const UPSTREAM_ONLY = ['destination-prefix', 'destination-strip-prefix', 'group-members', 'degraded-volume', 'error-volume',
  'unknown-volume', 'destination-unavailable-calls', 'name', 'cannot-group-code'];

function fail(message) { console.error(message + '\n' + USAGE); process.exit(2); }

function main() {
  const args = parseArgs(process.argv.slice(2), {
    repeatable: ['secret', 'abnormal-volume', 'peer-secret', 'group-members', 'degraded-volume', 'error-volume', 'unknown-volume'],
    booleans: ['quiet', 'help'],
  });
  if (args.help || !args.listen) { console.log(USAGE); process.exit(args.help ? 0 : 2); }
  const revision = args.revision || 'current';
  if (revision !== 'current' && revision !== 'upstream-2026') fail('unknown revision ' + revision);
  const upstream = revision === 'upstream-2026';
  const defect = args.defect;
  if (defect && !CONTROLLER_DEFECTS.includes(defect) && !HEALER_DEFECTS.includes(defect) && !UPSTREAM_DEFECTS[defect]) fail('unknown defect ' + defect);
  if (!upstream && UPSTREAM_DEFECTS[defect]) fail('defect ' + defect + ' needs --revision upstream-2026');
  const misplaced = UPSTREAM_ONLY.filter((k) => args[k] !== undefined && [].concat(args[k]).length > 0);
  if (!upstream && misplaced.length) fail('--' + misplaced.join(', --') + ': only with --revision upstream-2026');

  const volumes = Number(args.volumes || 16);
  const groups = Number(args.groups || 2);
  const requiredSecrets = keyValues(args.secret);
  const log = new CallLog(args['calls-file'], args.quiet);
  const site = { volumePrefix: args['volume-prefix'] || 'vol-', groupPrefix: args['group-prefix'] || 'grp-', startAs: args['start-as'] || 'disabled' };
  let sources;
  try { sources = makeFixtures(volumes, groups, site); } catch (e) { fail(e.message); }
  const members = parseMembers(args['group-members']);
  for (const [group, ids] of members) {
    if (!sources.has('volumegroup/' + group)) fail('--group-members: no group ' + group + ' among the fixtures');
    for (const id of ids) if (!sources.has('volume/' + id)) fail('--group-members: member ' + id + ' of ' + group + ' is not a volume of this plugin');
  }
  const destinationId = destinationIdOf({ destinationPrefix: args['destination-prefix'], destinationStripPrefix: args['destination-strip-prefix'] });

  const rpcs = ['EnableVolumeReplication', 'DisableVolumeReplication', 'PromoteVolume', 'DemoteVolume', 'ResyncVolume', 'GetVolumeReplicationInfo'];
  const cannotGroupCode = args['cannot-group-code'] || 'FAILED_PRECONDITION';
  if (!['FAILED_PRECONDITION', 'PERMISSION_DENIED'].includes(cannotGroupCode)) fail('--cannot-group-code: FAILED_PRECONDITION or PERMISSION_DENIED');
  const inFlight = new Set();
  const controller = makeController({
    sourceOf, sources, requiredSecrets, latencyMs: Number(args.latency || 20), log, defect, inFlight,
    infoResponse: upstream
      ? withHealth(infoResponseFor(defect), { degraded: args['degraded-volume'], error: args['error-volume'], unknown: args['unknown-volume'], defect })
      : infoResponseFor(defect),
    destinationResponse: destinationResponseFor({ destinationId, members, defect }),
    destinationUnavailableCalls: Number(args['destination-unavailable-calls'] || 0),
    demotionWindowMs: Number(args['demotion-window-ms'] || 0),
    firstSyncDelayMs: Number(args['first-sync-delay-ms'] || 0),
    promoteGuard: args.peer ? peerGuard({ peer: args.peer, secrets: args['peer-secret'].length ? keyValues(args['peer-secret']) : requiredSecrets, destinationId }) : undefined,
    rpcs: upstream ? rpcs.concat('GetReplicationDestinationInfo') : rpcs,
  });
  const server = new grpc.Server();
  server.addService(lenientService((upstream ? upstream2026() : current()).package.replication.Controller.service), controller);
  if (upstream) {
    server.addService(lenientService(identity().package.identity.Identity.service),
      identityHandlers({ name: args.name || 'plugin.interop.volrep.io', log, defect, volumeGroups: VOLUME_GROUP_CAPABILITIES }));
    server.addService(lenientService(volumegroup().package.volumegroup.Controller.service), makeVolumeGroups({
      sources, members, fresh, groupPrefix: site.groupPrefix, requiredSecrets, latencyMs: Number(args.latency || 20),
      log, inFlight, cannotGroupCode }));
  }
  server.addService(lenientService(healer().package.healer.HealerNode.service), {
    NodeHealer: nodeHealer({ sources, abnormal: args['abnormal-volume'], requiredSecrets, defect, log }),
  });
  serve(server, args.listen);
  if (upstream) console.log('speaking revision upstream-2026');
  if (defect) console.log('carrying defect ' + defect);
}

main();
