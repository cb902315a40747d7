'use strict';
// What the upstream-2026 revision adds to the peers (facts: shared/upstream-2026.md): the health status of
// GetVolumeReplicationInfo, the answers of GetReplicationDestinationInfo for a site whose destination ids
// differ from its source ids, Identity with GET_REPLICATION_DESTINATION_INFO, and a site's peer check before
// a promote without force.
const { grpc, upstream2026 } = require('./protos');
const { keyValues, status, unary } = require('./common');

// Each carried by `plugin.js --revision upstream-2026 --defect NAME`; the case of `client.js --upstream-2026`
// that catches it is in test/selfcheck.js.
const UPSTREAM_DEFECTS = {
  'status-missing': 'info without status (on the wire: absent, read as UNKNOWN)',
  'status-out-of-range': 'info status 7, outside the enum UNKNOWN..ERROR',
  'degraded-as-healthy': 'a --degraded-volume reported HEALTHY',
  'destination-missing': 'OK without replication_destination (REQUIRED)',
  'destination-wrong-kind': 'a volume answered with a volumegroup destination, a group with a volume destination',
  'destination-empty-id': 'destination volume_id / volume_group_id empty',
  'partial-member-map': "a group's member map without its last member",
  'member-map-empty-value': 'a member mapped to an empty destination id',
  'destination-before-enable': 'destination answered while replication is not enabled (never checked)',
  'destination-after-disable': 'destination still answered after Disable (once enabled)',
  'destination-unavailable-forever': 'UNAVAILABLE on every call once enabled',
  'destination-code-outside-table': '13 INTERNAL (not in the RPC table) where 9 FAILED_PRECONDITION belongs',
  'no-destination-capability': 'Identity does not advertise GET_REPLICATION_DESTINATION_INFO though the RPC is served',
};

/** `grp-0=vol-0,vol-1` (repeatable) -> Map group id -> [member volume ids]. */
function parseMembers(list) {
  const members = new Map();
  for (const [group, ids] of Object.entries(keyValues(list))) {
    members.set(group, ids.split(',').map((id) => id.trim()).filter(Boolean));
  }
  return members;
}

/**
 * A site's naming: the destination id of source X is `destinationPrefix` + X, after removing
 * `destinationStripPrefix` from X's start (so site B's b-vol-0 maps back to site A's vol-0).
 */
function destinationIdOf({ destinationPrefix = '', destinationStripPrefix = '' }) {
  return (id) => destinationPrefix + (destinationStripPrefix && id.startsWith(destinationStripPrefix) ? id.slice(destinationStripPrefix.length) : id);
}

/** (source) -> GetReplicationDestinationInfoResponse: the destination of the same kind, a group with its complete member map. */
function destinationResponseFor({ destinationId, members, defect }) {
  return (source) => {
    if (defect === 'destination-missing') return {};
    const id = defect === 'destination-empty-id' ? '' : destinationId(source.id);
    let kind = source.kind;
    if (defect === 'destination-wrong-kind') kind = kind === 'volume' ? 'volumegroup' : 'volume';
    if (kind === 'volume') return { replication_destination: { volume: { volume_id: id } } };
    const ids = {};
    const groupMembers = source.kind === 'volumegroup' ? (members.get(source.id) || []) : [];
    const given = defect === 'partial-member-map' ? groupMembers.slice(0, -1) : groupMembers;
    given.forEach((member, i) => {
      ids[member] = defect === 'member-map-empty-value' && i === given.length - 1 ? '' : destinationId(member);
    });
    return { replication_destination: { volumegroup: { volume_group_id: id, volume_ids: ids } } };
  };
}

/**
 * Wraps a revision's info answer with the health status (REQUIRED): HEALTHY once replicating, unless the
 * source is listed as degraded, in error or of unknown health.
 */
function withHealth(infoResponse, { degraded = [], error = [], unknown = [], defect }) {
  return (source) => {
    const response = infoResponse(source);
    const what = source.kind + ' ' + source.id;
    if (defect === 'status-missing') return response;
    if (defect === 'status-out-of-range') return { ...response, status: 7 };
    if (degraded.includes(source.id) && defect !== 'degraded-as-healthy') {
      return { ...response, status: 'DEGRADED', status_message: what + ': replication is degraded, the destination lags behind' };
    }
    if (error.includes(source.id)) return { ...response, status: 'ERROR', status_message: what + ': replication has failed, the destination is unreachable' };
    if (unknown.includes(source.id)) return { ...response, status: 'UNKNOWN', status_message: what + ': health cannot be determined' };
    return { ...response, status: 'HEALTHY' };
  };
}

/** identity.Identity for a plugin serving the upstream-2026 Controller (and `volumeGroups`: its VolumeGroup types). */
function identityHandlers({ name, log, defect, volumeGroups = [] }) {
  const capabilities = [
    { service: { type: 'CONTROLLER_SERVICE' } },
    { volume_replication: { type: 'VOLUME_REPLICATION' } },
  ];
  if (defect !== 'no-destination-capability') capabilities.push({ volume_replication: { type: 'GET_REPLICATION_DESTINATION_INFO' } });
  for (const type of volumeGroups) capabilities.push({ volume_group: { type } });
  const none = () => '-';
  return {
    GetIdentity: unary('GetIdentity', log, async () => ({ name, vendor_version: '0.1.0', manifest: { revision: 'upstream-2026' } }), none),
    GetCapabilities: unary('GetCapabilities', log, async () => ({ capabilities }), none),
    Probe: unary('Probe', log, async () => ({ ready: { value: true } }), none),
  };
}

const PEER_TIMEOUT_MS = 2000;

/**
 * A site's split-brain guard, as storage does it: a promote without force first asks the peer site about the
 * destination (GetVolumeReplicationInfo, which answers OK only while that side is replicating and primary).
 * The peer demoted or without the source: promote. The peer primary, or unreachable within 2 s: refuse with
 * FAILED_PRECONDITION (the seed's "cannot be promoted without force option"); force promotes regardless.
 */
function peerGuard({ peer, secrets, destinationId }) {
  const Controller = upstream2026().package.replication.Controller;
  const client = new Controller(peer, grpc.credentials.createInsecure());
  return async (source) => {
    const peerId = destinationId(source.id);
    const request = { secrets, replication_source: source.kind === 'volume' ? { volume: { volume_id: peerId } } : { volumegroup: { volume_group_id: peerId } } };
    const code = await new Promise((resolve) => client.GetVolumeReplicationInfo(request, { deadline: Date.now() + PEER_TIMEOUT_MS },
      (err) => resolve(err ? err.code : grpc.status.OK)));
    if (code === grpc.status.FAILED_PRECONDITION || code === grpc.status.NOT_FOUND) return;
    const what = source.kind + ' ' + source.id;
    if (code === grpc.status.OK) throw status('FAILED_PRECONDITION', `${what} cannot be promoted without force: its peer ${peerId} is still primary`);
    const name = Object.keys(grpc.status).find((k) => grpc.status[k] === code);
    throw status('FAILED_PRECONDITION', `${what} cannot be promoted without force: the peer cannot confirm ${peerId} is demoted (${name})`);
  };
}

module.exports = { UPSTREAM_DEFECTS, parseMembers, destinationIdOf, destinationResponseFor, withHealth, identityHandlers, peerGuard };
