'use strict';
// volumegroup.Controller for `plugin.js --revision upstream-2026`, written from csi-addons/spec volumegroup/README.md
// (facts: shared/upstream-2026.md, last section), sharing no volrep code. A group it creates is a replication source
// of the same plugin from then on ('volumegroup/<id>' in the controller's sources), and its members are what the
// group's GetReplicationDestinationInfo maps (the `members` Map the destinations read).
//
// Semantics, in the order a plugin checks: the request's fields (INVALID_ARGUMENT), secrets (UNAUTHENTICATED), one call
// per group in flight (ABORTED, shared with the replication RPCs on the group), then:
//   Create: idempotent by name (the same parameters and volume set answer the same group; else ALREADY_EXISTS);
//           an unknown volume is INVALID_ARGUMENT (the table has no NOT_FOUND); a volume of another group cannot be
//           grouped (LIMIT_VOLUME_TO_ONE_VOLUME_GROUP): `--cannot-group-code` (FAILED_PRECONDITION, or upstream's
//           text's PERMISSION_DENIED); the id is the site's group prefix + the name.
//   Modify: the whole membership; an unknown group or volume NOT_FOUND; a volume of another group INVALID_ARGUMENT.
//   Delete: an unknown group OK; a group whose replication is enabled FAILED_PRECONDITION (in use); the volumes stay
//           (DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES).
//   Get: NOT_FOUND for an unknown group. List: max_entries not negative, pages sorted by id, `after:<id>` tokens
//        (anything else ABORTED).
const { status, checkString, checkMap, checkSecrets, sleep, unary } = require('./common');

const CAPABILITIES = ['VOLUME_GROUP', 'LIMIT_VOLUME_TO_ONE_VOLUME_GROUP', 'DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES',
  'MODIFY_VOLUME_GROUP', 'GET_VOLUME_GROUP', 'LIST_VOLUME_GROUPS'];
const TOKEN_PREFIX = 'after:';

/**
 * @param o.sources          the controller's sources (Map 'kind/id' -> replication state); groups are added here
 * @param o.members          Map group id -> [member volume ids], read by the group destinations
 * @param o.fresh            () -> the state of a new source (replication disabled)
 * @param o.groupPrefix      the site's group id prefix (created ids: prefix + name)
 * @param o.cannotGroupCode  the code for a volume that is in another group (FAILED_PRECONDITION by default)
 * @param o.inFlight         the controller's Set of sources with a call in flight
 */
function makeVolumeGroups(o) {
  const { sources, members, fresh, groupPrefix, requiredSecrets, latencyMs, log, inFlight } = o;
  const cannotGroupCode = o.cannotGroupCode || 'FAILED_PRECONDITION';
  const groups = new Map(); // id -> { name, parameters }
  // The fixture groups (grp-0..): groups of their own name, with the members --group-members gave them.
  for (const key of sources.keys()) {
    if (key.startsWith('volumegroup/')) {
      const id = key.slice('volumegroup/'.length);
      groups.set(id, { name: id, parameters: {} });
      if (!members.has(id)) members.set(id, []);
    }
  }
  const memberOf = (volume, except) => [...members.entries()].find(([id, vols]) => id !== except && groups.has(id)
    && vols.includes(volume));
  const wire = (id) => ({ volume_group_id: id, volume_group_context: {},
    volumes: (members.get(id) || []).map((v) => ({ volume_id: v, capacity_bytes: 0, volume_context: {} })) });
  const requireId = (field, value) => {
    if (!value) throw status('INVALID_ARGUMENT', field + ' is required');
    checkString(field, value);
  };
  const requireIds = (ids) => {
    const seen = new Set();
    ids.forEach((id, i) => {
      requireId('volume_ids[' + i + ']', id);
      if (seen.has(id)) throw status('INVALID_ARGUMENT', 'volume_ids[' + i + '] ' + id + ' is given twice');
      seen.add(id);
    });
  };

  /** Runs `effect` under the checks every call shares; `key` is the group the call holds, or null. */
  function rpc(name, validate, effect, describe) {
    return unary(name, log, async (req) => {
      const key = validate(req);
      checkMap('secrets', req.secrets);
      checkSecrets(requiredSecrets, req.secrets);
      if (key && inFlight.has(key)) throw status('ABORTED', 'operation pending for ' + key);
      if (key) inFlight.add(key);
      try {
        if (latencyMs > 0) await sleep(latencyMs);
        return effect(req);
      } finally {
        if (key) inFlight.delete(key);
      }
    }, describe);
  }
  const byId = (req) => 'volumegroup ' + (req.volume_group_id || '(none)');

  return {
    CreateVolumeGroup: rpc('CreateVolumeGroup', (req) => {
      requireId('name', req.name);
      requireIds(req.volume_ids);
      checkMap('parameters', req.parameters);
      return 'volumegroup/' + groupPrefix + req.name;
    }, (req) => {
      const id = groupPrefix + req.name;
      const existing = groups.get(id);
      const sameSet = (a, b) => a.length === b.length && a.every((v) => b.includes(v));
      if (existing) {
        if (JSON.stringify(sortedEntries(existing.parameters)) !== JSON.stringify(sortedEntries(req.parameters))
            || !sameSet(members.get(id), req.volume_ids)) {
          throw status('ALREADY_EXISTS', 'volume group ' + req.name + ' exists with other parameters or volumes');
        }
        return { volume_group: wire(id) };
      }
      req.volume_ids.forEach((v, i) => {
        if (!sources.has('volume/' + v)) throw status('INVALID_ARGUMENT', 'volume_ids[' + i + '] ' + v + ' does not exist');
        const other = memberOf(v, null);
        if (other) throw status(cannotGroupCode, 'volumes cannot be grouped together: ' + v + ' is in volume group ' + other[0]);
      });
      groups.set(id, { name: req.name, parameters: { ...req.parameters } });
      members.set(id, [...req.volume_ids]);
      sources.set('volumegroup/' + id, fresh());
      return { volume_group: wire(id) };
    }, (req) => 'name ' + (req.name || '(none)')),

    ModifyVolumeGroupMembership: rpc('ModifyVolumeGroupMembership', (req) => {
      requireId('volume_group_id', req.volume_group_id);
      requireIds(req.volume_ids);
      checkMap('parameters', req.parameters);
      return 'volumegroup/' + req.volume_group_id;
    }, (req) => {
      const id = req.volume_group_id;
      if (!groups.has(id)) throw status('NOT_FOUND', 'volume group ' + id + ' does not exist');
      req.volume_ids.forEach((v) => {
        if (!sources.has('volume/' + v)) throw status('NOT_FOUND', 'volume ' + v + ' does not exist');
        const other = memberOf(v, id);
        if (other) throw status('INVALID_ARGUMENT', 'volume ' + v + ' is in volume group ' + other[0]);
      });
      members.set(id, [...req.volume_ids]);
      return { volume_group: wire(id) };
    }, byId),

    DeleteVolumeGroup: rpc('DeleteVolumeGroup', (req) => {
      requireId('volume_group_id', req.volume_group_id);
      return 'volumegroup/' + req.volume_group_id;
    }, (req) => {
      const id = req.volume_group_id;
      if (!groups.has(id)) return {};
      const state = sources.get('volumegroup/' + id);
      if (state && state.enabled) throw status('FAILED_PRECONDITION', 'volume group ' + id + ' is in use: its replication is enabled');
      groups.delete(id);
      members.delete(id);
      sources.delete('volumegroup/' + id);
      return {};
    }, byId),

    ControllerGetVolumeGroup: rpc('ControllerGetVolumeGroup', (req) => {
      requireId('volume_group_id', req.volume_group_id);
      return 'volumegroup/' + req.volume_group_id;
    }, (req) => {
      if (!groups.has(req.volume_group_id)) throw status('NOT_FOUND', 'volume group ' + req.volume_group_id + ' does not exist');
      return { volume_group: wire(req.volume_group_id) };
    }, byId),

    ListVolumeGroups: rpc('ListVolumeGroups', (req) => {
      if (req.max_entries < 0) throw status('INVALID_ARGUMENT', 'max_entries must not be negative');
      if (req.starting_token && !req.starting_token.startsWith(TOKEN_PREFIX)) {
        throw status('ABORTED', 'starting_token is not valid: start again with an empty token');
      }
      return null;
    }, (req) => {
      const ids = [...groups.keys()].sort();
      const after = req.starting_token ? req.starting_token.slice(TOKEN_PREFIX.length) : null;
      const from = after === null ? 0 : ids.findIndex((id) => id > after) < 0 ? ids.length : ids.findIndex((id) => id > after);
      const to = req.max_entries > 0 ? Math.min(ids.length, from + req.max_entries) : ids.length;
      const page = { entries: ids.slice(from, to).map((id) => ({ volume_group: wire(id) })), next_token: '' };
      if (to < ids.length) page.next_token = TOKEN_PREFIX + ids[to - 1];
      return page;
    }, () => '-'),
  };
}

function sortedEntries(map) {
  return Object.entries(map || {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

module.exports = { makeVolumeGroups, CAPABILITIES };
