'use strict';
// The spec's replication semantics, shared by the current-revision, upstream-2026 and legacy peers. Each
// revision supplies `sourceOf(request)` (how its wire form names a source), `infoResponse(source)` (its info
// shape) and, when it has the seventh RPC, `destinationResponse(source)`.
//
// Order of checks, as a plugin naturally does it: request validation (INVALID_ARGUMENT), secrets
// (UNAUTHENTICATED), one call in flight per source (ABORTED), existence (NOT_FOUND), preconditions
// (FAILED_PRECONDITION), then the effect.
const { status, checkString, checkMap, checkSecrets, sleep, unary } = require('./common');

/**
 * Fixtures vol-0..vol-(volumes-1) and grp-0..grp-(groups-1), by default with replication disabled and primary.
 * A site of a two-site setup names them with other prefixes and starts them replicating: `secondary` (enabled,
 * demoted: a failover target) or `primary` (enabled, promoted: the site in use).
 */
function makeFixtures(volumes, groups, { volumePrefix = 'vol-', groupPrefix = 'grp-', startAs = 'disabled' } = {}) {
  const start = { disabled: {}, secondary: { enabled: true, primary: false }, primary: { enabled: true, primary: true } }[startAs];
  if (!start) throw new Error('--start-as must be disabled, secondary or primary, got ' + startAs);
  const sources = new Map();
  for (let i = 0; i < volumes; i++) sources.set('volume/' + volumePrefix + i, { ...fresh(), ...start });
  for (let i = 0; i < groups; i++) sources.set('volumegroup/' + groupPrefix + i, { ...fresh(), ...start });
  return sources;
}
function fresh() { return { enabled: false, primary: true, resyncCalls: 0, destinationUnavailableLeft: 0, syncedAt: 0, peerDemotedSeenAt: 0 }; }

/**
 * Handlers for the Controller RPCs named in `rpcs`.
 * @param o.sourceOf      request -> {kind, id}; throws INVALID_ARGUMENT for a missing or malformed source
 * @param o.infoResponse  (source) -> the revision's GetVolumeReplicationInfoResponse
 * @param o.destinationResponse (source) -> GetReplicationDestinationInfoResponse (upstream-2026 only)
 * @param o.destinationUnavailableCalls  the first N destination calls after each enable answer UNAVAILABLE
 * @param o.promoteGuard  async (source) -> throws to refuse a promote without force (a site's peer check)
 * @param o.demotionWindowMs  with a promoteGuard: once the peer is first seen demoted, promotes without force are
 *                        still refused (FAILED_PRECONDITION) for this long, as real mirroring does until the
 *                        demotion has arrived
 * @param o.firstSyncDelayMs  for this long after an enable or a promote, info answers NOT_FOUND ("details not
 *                        available at the moment"): the first sync has not completed
 * @param o.defect        the one spec defect to carry (see plugin.js --help), or undefined
 * @param o.inFlight      the Set of sources with a call in flight, when another service shares it
 */
function makeController(o) {
  const { sourceOf, sources, requiredSecrets, latencyMs, log, defect } = o;
  const unavailableCalls = o.destinationUnavailableCalls || 0;
  // Shared with the volume group service (upstream-2026), so that a group has one call in flight whatever the service.
  const inFlight = o.inFlight || new Set();
  const everEnabled = new Set(); // only for the defect destination-after-disable
  // Sources a site starts replicating count as just enabled: destination info needs time there too.
  for (const state of sources.values()) if (state.enabled) state.destinationUnavailableLeft = unavailableCalls;

  const describe = (req) => { try { const s = sourceOf(req); return s.kind + ' ' + s.id; } catch (e) { return '(no source)'; } };

  function validate(req) {
    if (defect === 'accept-missing-source' && !req.volume_id && !(req.replication_source && req.replication_source.type)) {
      return null; // the defect: a request naming no source is "served"
    }
    const source = sourceOf(req);
    checkString('replication_id', req.replication_id);
    checkMap('parameters', req.parameters);
    checkMap('secrets', req.secrets);
    return source;
  }

  /** Runs `effect(state, source)` under the spec's checks; `effect` returns the response. */
  function rpc(name, effect) {
    return unary(name, log, async (req) => {
      const source = validate(req);
      if (source === null) return {};
      if (defect !== 'ignore-secrets') checkSecrets(requiredSecrets, req.secrets);
      const key = source.kind + '/' + source.id;
      if (inFlight.has(key)) throw status('ABORTED', 'operation pending for ' + source.kind + ' ' + source.id);
      inFlight.add(key);
      try {
        if (latencyMs > 0) await sleep(latencyMs);
        const state = sources.get(key);
        if (!state) {
          if (defect === 'not-found-as-unknown') throw status('UNKNOWN', 'lookup failed');
          throw status('NOT_FOUND', source.kind + ' ' + source.id + ' does not exist');
        }
        return await effect(state, source, req);
      } finally {
        inFlight.delete(key);
      }
    }, describe);
  }

  function requireEnabled(state, source, rpcName) {
    if (!state.enabled) {
      if (defect === 'wrong-precondition-code' && rpcName === 'PromoteVolume') throw status('INVALID_ARGUMENT', 'not enabled');
      throw status('FAILED_PRECONDITION', 'replication is not enabled on ' + source.kind + ' ' + source.id);
    }
  }

  const handlers = {
    EnableVolumeReplication: rpc('EnableVolumeReplication', (state, source) => {
      if (defect === 'unimplemented-enable') throw status('UNIMPLEMENTED', 'enable is not implemented');
      if (defect === 'not-idempotent-enable' && state.enabled) throw status('ALREADY_EXISTS', 'already enabled');
      if (!state.enabled) {
        state.destinationUnavailableLeft = unavailableCalls;
        state.syncedAt = Date.now() + (o.firstSyncDelayMs || 0);
      }
      state.enabled = true;
      return {};
    }),
    DisableVolumeReplication: rpc('DisableVolumeReplication', (state) => {
      Object.assign(state, fresh()); // back to a standalone (primary) volume
      return {};
    }),
    PromoteVolume: rpc('PromoteVolume', async (state, source, req) => {
      requireEnabled(state, source, 'PromoteVolume');
      // Already primary: nothing to confirm (a re-run of a failover changes nothing).
      if (o.promoteGuard && !req.force && !state.primary) {
        await o.promoteGuard(source);
        // The peer says it is demoted: its demotion still has to arrive here before a promote without force.
        if (o.demotionWindowMs > 0) {
          if (!state.peerDemotedSeenAt) state.peerDemotedSeenAt = Date.now();
          if (Date.now() - state.peerDemotedSeenAt < o.demotionWindowMs) {
            throw status('FAILED_PRECONDITION', source.kind + ' ' + source.id + ' cannot be promoted without force yet: the peer\'s demotion has not arrived');
          }
        }
      }
      if (!state.primary) state.syncedAt = Date.now() + (o.firstSyncDelayMs || 0);
      state.primary = true;
      state.resyncCalls = 0;
      state.peerDemotedSeenAt = 0;
      return {};
    }),
    DemoteVolume: rpc('DemoteVolume', (state, source) => {
      if (defect !== 'demote-skips-precondition') requireEnabled(state, source, 'DemoteVolume');
      state.primary = false;
      return {};
    }),
    ResyncVolume: rpc('ResyncVolume', (state, source) => {
      requireEnabled(state, source, 'ResyncVolume');
      if (state.primary && defect !== 'resync-without-demote') {
        throw status('FAILED_PRECONDITION', source.kind + ' ' + source.id + ' is not demoted');
      }
      state.resyncCalls++;
      // Ready only after progress: the second call on, never the first.
      return { ready: defect !== 'resync-never-ready' && state.resyncCalls >= 2 };
    }),
    GetVolumeReplicationInfo: rpc('GetVolumeReplicationInfo', (state, source) => {
      requireEnabled(state, source, 'GetVolumeReplicationInfo');
      if (!state.primary && defect !== 'info-when-demoted') {
        throw status('FAILED_PRECONDITION', source.kind + ' ' + source.id + ' is not promoted');
      }
      if (Date.now() < state.syncedAt) {
        throw status('NOT_FOUND', 'replication details of ' + source.kind + ' ' + source.id + ' are not available at the moment: the first sync has not completed');
      }
      return o.infoResponse(source);
    }),
    // upstream-2026: the destination of a replicated source; any role, as long as replication is enabled.
    GetReplicationDestinationInfo: rpc('GetReplicationDestinationInfo', (state, source) => {
      const key = source.kind + '/' + source.id;
      if (!state.enabled) {
        const answerAnyway = defect === 'destination-before-enable' || (defect === 'destination-after-disable' && everEnabled.has(key));
        if (!answerAnyway) {
          if (defect === 'destination-code-outside-table') throw status('INTERNAL', 'no replication for ' + source.kind + ' ' + source.id);
          throw status('FAILED_PRECONDITION', 'replication is not enabled on ' + source.kind + ' ' + source.id);
        }
      } else {
        everEnabled.add(key);
        if (defect === 'destination-unavailable-forever' || state.destinationUnavailableLeft > 0) {
          state.destinationUnavailableLeft = Math.max(0, state.destinationUnavailableLeft - 1);
          throw status('UNAVAILABLE', 'destination info for ' + source.kind + ' ' + source.id + ' is not yet available');
        }
      }
      return o.destinationResponse(source);
    }),
  };
  const selected = {};
  for (const name of o.rpcs) selected[name] = handlers[name];
  return selected;
}

/** A Timestamp for "now" in the wire's shape. */
function nowTimestamp() {
  const ms = Date.now();
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 };
}

const CONTROLLER_DEFECTS = ['wrong-precondition-code', 'not-idempotent-enable', 'info-without-last-sync-time',
  'negative-bytes', 'ignore-secrets', 'resync-never-ready', 'unimplemented-enable', 'accept-missing-source',
  'not-found-as-unknown', 'demote-skips-precondition', 'resync-without-demote', 'info-when-demoted'];

module.exports = { makeController, makeFixtures, fresh, nowTimestamp, CONTROLLER_DEFECTS };
