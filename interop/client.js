#!/usr/bin/env node
'use strict';
// An independent wire client for a current-revision (seed 001) replication plugin, plus the NodeHealer
// (seed 002) with --healer. Sends the spec's cases and checks the code of every answer. Prints one line
// per case and exits 1 on any mismatch (2 when the plugin cannot be reached at all).
//
// With --upstream-2026 it speaks only upstream's 2026 protos (proto/upstream2026: field 1 reserved, so never
// sent; no volumesnapshot) and adds that revision's cases: the health status of info, the seventh RPC
// GetReplicationDestinationInfo (its error rows, kinds and ids, member maps, UNAVAILABLE only as transient) and
// Identity's GET_REPLICATION_DESTINATION_INFO capability.
//
// It expects the fixtures `volrep serve-reference` and plugin.js create: volumes vol-0..vol-(N-1) and
// groups grp-0..grp-(M-1), all with replication disabled and primary, and it leaves them that way.
const { grpc, current, upstream2026, healer, identity } = require('./lib/protos');
const { parseArgs, keyValues, sleep } = require('./lib/common');
const { parseMembers } = require('./lib/upstream');

const USAGE = `usage: node client.js --endpoint unix:///path.sock [--volumes N] [--groups M] [--secret K=V]... [--secrets-file JSON]
        [--healer] [--abnormal-volume ID] [--only SUBSTRING[,SUBSTRING]...] [--verbose]
        [--upstream-2026 [--degraded-volume ID] [--error-volume ID] [--group-members GROUP=VOL,VOL]...
                         [--destination-attempts N (10)] [--allow-unknown-status] [--skip-identity]]`;

const args = parseArgs(process.argv.slice(2), { repeatable: ['secret', 'group-members'],
  booleans: ['healer', 'verbose', 'help', 'upstream-2026', 'allow-unknown-status', 'skip-identity'] });
if (args.help || !args.endpoint) { console.log(USAGE); process.exit(args.help ? 0 : 2); }
const upstream = !!args['upstream-2026'];
const upstreamOnly = ['degraded-volume', 'error-volume', 'destination-attempts', 'allow-unknown-status', 'skip-identity']
  .filter((k) => args[k] !== undefined).concat(args['group-members'].length ? ['group-members'] : []);
if (!upstream && upstreamOnly.length) { console.error('--' + upstreamOnly.join(', --') + ': only with --upstream-2026\n' + USAGE); process.exit(2); }

const DESTINATION = 'GetReplicationDestinationInfo';
const RPCS = ['EnableVolumeReplication', 'DisableVolumeReplication', 'PromoteVolume', 'DemoteVolume', 'ResyncVolume',
  'GetVolumeReplicationInfo'].concat(upstream ? [DESTINATION] : []);
const WITH_PARAMETERS = RPCS.filter((r) => r !== 'GetVolumeReplicationInfo' && r !== DESTINATION);
const WITH_REPLICATION_ID = RPCS.filter((r) => r !== DESTINATION);
const NEEDS_ENABLED = ['PromoteVolume', 'DemoteVolume', 'ResyncVolume', 'GetVolumeReplicationInfo'].concat(upstream ? [DESTINATION] : []);
const STATUSES = ['UNKNOWN', 'HEALTHY', 'DEGRADED', 'ERROR'];
const codeName = (n) => Object.keys(grpc.status).find((k) => grpc.status[k] === n) || String(n);

// --secrets-file keeps the values out of this process's arguments (the exec-bridge IT scans every process's).
const secrets = { ...keyValues(args.secret), ...(args['secrets-file'] ? JSON.parse(require('fs').readFileSync(args['secrets-file'], 'utf8')) : {}) };
const volumes = Number(args.volumes || 16);
const groups = Number(args.groups || 2);
if (volumes < 16 || groups < 2) { console.error('client.js needs at least 16 volumes and 2 groups'); process.exit(2); }

const Controller = (upstream ? upstream2026() : current()).package.replication.Controller;
const controller = new Controller(args.endpoint, grpc.credentials.createInsecure());
const Identity = identity().package.identity.Identity;
const identityStub = new Identity(args.endpoint, grpc.credentials.createInsecure());
// The members the plugin was started with (plugin.js --group-members): a group's member map must cover exactly these.
const members = parseMembers(args['group-members']);
const destinationAttempts = Number(args['destination-attempts'] || 10);
const HealerNode = healer().package.healer.HealerNode;
const node = new HealerNode(args.endpoint, grpc.credentials.createInsecure());
const raw = new grpc.Client(args.endpoint, grpc.credentials.createInsecure());

// ------------------------------------------------------------------------------------------ plumbing

/** One call; resolves to { code, response, details } whatever the outcome. */
function call(stub, rpc, request) {
  return new Promise((resolve) => {
    stub[rpc](request, { deadline: Date.now() + 10000 }, (err, response) => {
      if (err) resolve({ code: codeName(err.code), details: err.details });
      else resolve({ code: 'OK', response });
    });
  });
}
const rc = (rpc, request) => call(controller, rpc, request);

/** A call whose request is `bytes` as they are: the plugin's parser sees exactly what we send. */
function rawCall(path, bytes) {
  return new Promise((resolve) => {
    raw.makeUnaryRequest(path, (b) => b, (b) => b, bytes, { deadline: Date.now() + 10000 }, (err) => {
      resolve(err ? { code: codeName(err.code), details: err.details } : { code: 'OK' });
    });
  });
}

const vol = (id, extra = {}) => ({ replication_source: { volume: { volume_id: id } }, secrets, ...extra });
const grp = (id, extra = {}) => ({ replication_source: { volumegroup: { volume_group_id: id } }, secrets, ...extra });
const long = (n, c = 'x') => c.repeat(n);
const bigMap = (total) => { const m = {}; for (let i = 0; total > 0; i++) { const k = 'k' + i; const v = long(Math.min(1000, total)); m[k] = v; total -= k.length + v.length; } return m; };

let passed = 0;
const failures = [];
// --only SUBSTRING[,SUBSTRING...]: run just the cases whose name contains one of them.
const only = args.only ? args.only.split(',') : null;
const wanted = (name) => !only || only.some((o) => name.includes(o));

/** Runs one case: `fn` returns null when it passed, or the mismatch text. */
async function check(name, fn) {
  if (!wanted(name)) return;
  let mismatch;
  try { mismatch = await fn(); } catch (e) { mismatch = 'threw ' + (e && e.stack || e); }
  if (mismatch) { failures.push(name); console.log(`FAIL ${name}: ${mismatch}`); } else { passed++; console.log(`ok   ${name}`); }
}

/** A case that expects one code (or one of several). */
function expect(name, expected, send) {
  const allowed = [].concat(expected);
  return check(name + ' -> ' + allowed.join(' or '), async () => {
    const out = await send();
    if (allowed.includes(out.code)) return null;
    return `expected ${allowed.join(' or ')}, got ${out.code}${out.details ? ' (' + out.details + ')' : ''}`;
  });
}

/** Steps that must all succeed (a setup or a restore); throws with the failing step. */
async function steps(target, label, ...rpcs) {
  for (const rpc of rpcs) {
    const out = await rc(rpc, target);
    if (out.code !== 'OK') throw new Error(`${rpc} on ${label} (setup/restore) answered ${out.code} ${out.details || ''}`);
  }
}
const restore = (target, label) => steps(target, label, 'EnableVolumeReplication', 'PromoteVolume', 'DisableVolumeReplication');

/** Brings a source to the state where `rpc`'s only failing condition is the one under test. */
async function prepare(rpc, target, label) {
  if (NEEDS_ENABLED.includes(rpc)) await steps(target, label, 'EnableVolumeReplication', 'PromoteVolume');
  if (rpc === 'ResyncVolume') await steps(target, label, 'DemoteVolume');
}

// ------------------------------------------------------------------------------------------ cases

async function errorRows() {
  for (const rpc of RPCS) {
    await expect(`${rpc}: missing replication_source`, 'INVALID_ARGUMENT', () => rc(rpc, { secrets }));
    await expect(`${rpc}: replication_source without a type`, 'INVALID_ARGUMENT', () => rc(rpc, { replication_source: {}, secrets }));
    await expect(`${rpc}: empty volume_id in the source`, 'INVALID_ARGUMENT', () => rc(rpc, vol('')));
    await expect(`${rpc}: empty volume_group_id in the source`, 'INVALID_ARGUMENT', () => rc(rpc, grp('')));
    await expect(`${rpc}: nonexistent volume`, 'NOT_FOUND', () => rc(rpc, vol('interop-no-such-volume')));
    await expect(`${rpc}: nonexistent volume group`, 'NOT_FOUND', () => rc(rpc, grp('interop-no-such-group')));
    await expect(`${rpc}: volume id of 129 bytes (over the CSI limit)`, 'INVALID_ARGUMENT', () => rc(rpc, vol(long(129))));
    await expect(`${rpc}: volume group id of 129 bytes`, 'INVALID_ARGUMENT', () => rc(rpc, grp(long(129))));
    await expect(`${rpc}: volume id of exactly 128 bytes (within the limit, no such volume)`, 'NOT_FOUND', () => rc(rpc, vol(long(128))));
    if (WITH_REPLICATION_ID.includes(rpc)) {
      await expect(`${rpc}: replication_id of 129 bytes`, 'INVALID_ARGUMENT', () => rc(rpc, vol('vol-0', { replication_id: long(129) })));
    }
    await expect(`${rpc}: secrets over 4 KiB`, 'INVALID_ARGUMENT', () => rc(rpc, vol('vol-0', { secrets: { ...secrets, ...bigMap(4200) } })));
    if (WITH_PARAMETERS.includes(rpc)) {
      await expect(`${rpc}: parameters over 4 KiB`, 'INVALID_ARGUMENT', () => rc(rpc, vol('vol-0', { parameters: bigMap(4200) })));
    }
    if (Object.keys(secrets).length > 0 && wanted(`${rpc}: wrong secret values`)) {
      await prepare(rpc, vol('vol-1'), 'vol-1');
      const wrong = Object.fromEntries(Object.keys(secrets).map((k) => [k, 'interop-wrong-value']));
      await expect(`${rpc}: wrong secret values`, 'UNAUTHENTICATED', () => rc(rpc, vol('vol-1', { secrets: wrong })));
      await expect(`${rpc}: no secrets`, 'UNAUTHENTICATED', () => rc(rpc, vol('vol-1', { secrets: {} })));
      await restore(vol('vol-1'), 'vol-1');
    }
  }
}

async function preconditionRows() {
  for (const rpc of NEEDS_ENABLED) {
    await expect(`${rpc}: volume with replication disabled`, 'FAILED_PRECONDITION', () => rc(rpc, vol('vol-2')));
    await expect(`${rpc}: volume group with replication disabled`, 'FAILED_PRECONDITION', () => rc(rpc, grp('grp-1')));
  }
  if (!wanted('replication enabled, primary') && !wanted('replication enabled, demoted')) return;
  await steps(vol('vol-2'), 'vol-2', 'EnableVolumeReplication', 'PromoteVolume');
  await expect('ResyncVolume: replication enabled, primary (not demoted)', 'FAILED_PRECONDITION', () => rc('ResyncVolume', vol('vol-2')));
  await steps(vol('vol-2'), 'vol-2', 'DemoteVolume');
  await expect('GetVolumeReplicationInfo: replication enabled, demoted (not promoted)', 'FAILED_PRECONDITION', () => rc('GetVolumeReplicationInfo', vol('vol-2')));
  await restore(vol('vol-2'), 'vol-2');
}

/** enable, promote, info, demote, resync until ready, promote, disable: each call made twice, both OK. */
async function lifecycle(target, label) {
  const twice = async (rpc, validate) => check(`lifecycle ${label}: ${rpc} twice -> OK, OK`, async () => {
    for (const n of [1, 2]) {
      const out = await rc(rpc, target);
      if (out.code !== 'OK') return `call ${n} answered ${out.code} ${out.details || ''}`;
      const bad = validate && validate(out.response);
      if (bad) return `call ${n}: ${bad}`;
    }
    return null;
  });
  await twice('EnableVolumeReplication');
  await twice('PromoteVolume');
  await twice('GetVolumeReplicationInfo', (r) => {
    if (!r.last_sync_time) return 'no last_sync_time (REQUIRED)';
    if (Number(r.last_sync_bytes) < 0) return 'negative last_sync_bytes ' + r.last_sync_bytes;
    return upstream ? statusMismatch(r) : null;
  });
  if (upstream) await destinationTwice(target, label);
  await twice('DemoteVolume');
  if (upstream) await expectDestination(`lifecycle ${label}: GetReplicationDestinationInfo while demoted (replication enabled) -> OK`, target);
  await check(`lifecycle ${label}: ResyncVolume repeated until ready -> OK each time, ready within 20 calls`, async () => {
    for (let n = 1; n <= 20; n++) {
      const out = await rc('ResyncVolume', target);
      if (out.code !== 'OK') return `call ${n} answered ${out.code} ${out.details || ''}`;
      if (out.response.ready) return null;
    }
    return 'never ready';
  });
  await twice('PromoteVolume');
  await twice('DisableVolumeReplication');
  if (upstream) await expect(`lifecycle ${label}: GetReplicationDestinationInfo after DisableVolumeReplication`, 'FAILED_PRECONDITION', () => rc(DESTINATION, target));
}

// ------------------------------------------------------------------------------------------ upstream-2026

/** Mismatch text for an info status: REQUIRED, inside the enum; UNKNOWN reads the same as absent on the wire. */
function statusMismatch(r) {
  if (!STATUSES.includes(r.status)) return 'status ' + r.status + ' outside the enum UNKNOWN..ERROR';
  if (r.status === 'UNKNOWN' && !args['allow-unknown-status']) return 'status absent or UNKNOWN (REQUIRED; on the wire the two are one)';
  return null;
}

const kindOf = (target) => (target.replication_source.volume ? 'volume' : 'volumegroup');
const idOf = (target) => (target.replication_source.volume ? target.replication_source.volume.volume_id : target.replication_source.volumegroup.volume_group_id);

/** Mismatch text for a destination answer: REQUIRED destination of the source's kind, non-empty ids, a complete member map. */
function destinationMismatch(target, response) {
  const d = response.replication_destination;
  if (!d || !d.type) return 'no replication_destination (REQUIRED)';
  if (d.type !== kindOf(target)) return `a ${d.type} destination for a ${kindOf(target)} source`;
  if (d.type === 'volume') return d.volume.volume_id ? null : 'empty destination volume_id (REQUIRED)';
  const g = d.volumegroup;
  if (!g.volume_group_id) return 'empty destination volume_group_id (REQUIRED)';
  const map = g.volume_ids || {};
  for (const [k, v] of Object.entries(map)) if (!k || !v) return `empty id in the member map: ${JSON.stringify(k)} -> ${JSON.stringify(v)}`;
  const known = members.get(idOf(target));
  if (known && Object.keys(map).length > 0) {
    const missing = known.filter((m) => !(m in map));
    const extra = Object.keys(map).filter((m) => !known.includes(m));
    if (missing.length) return 'member map incomplete (a partial map MUST be an error instead): missing ' + missing.join(',');
    if (extra.length) return 'member map names volumes outside the group: ' + extra.join(',');
  }
  return null;
}

/**
 * The seventh RPC until it stops answering UNAVAILABLE (the spec's "not yet available": transient, retried with
 * back-off), at most --destination-attempts calls, delays 25 ms doubling up to 400 ms. Any other code ends it.
 */
async function destinationOnceAvailable(target) {
  let out;
  for (let attempt = 1; attempt <= destinationAttempts; attempt++) {
    out = await rc(DESTINATION, target);
    if (out.code !== 'UNAVAILABLE') return { out, attempts: attempt };
    if (attempt < destinationAttempts) await sleep(Math.min(400, 25 * 2 ** (attempt - 1)));
  }
  return { out, attempts: destinationAttempts };
}

/** A case: the destination, once available, is OK and (unless `shape` is false) well-formed, then passes `extra`. */
function expectDestination(name, target, { shape = true, extra } = {}) {
  return check(name, async () => {
    const { out, attempts } = await destinationOnceAvailable(target);
    if (out.code === 'UNAVAILABLE') return `still UNAVAILABLE after ${attempts} attempts (UNAVAILABLE is transient only)`;
    if (out.code !== 'OK') return `got ${out.code}${out.details ? ' (' + out.details + ')' : ''}`;
    if (args.verbose) console.log(`     ${JSON.stringify(out.response.replication_destination)} after ${attempts} attempt(s)`);
    return (shape && destinationMismatch(target, out.response)) || (extra ? extra(out.response) : null);
  });
}

async function destinationTwice(target, label) {
  await check(`lifecycle ${label}: GetReplicationDestinationInfo twice -> OK, OK, the same destination`, async () => {
    const { out: first, attempts } = await destinationOnceAvailable(target);
    if (first.code !== 'OK') return `call 1 answered ${first.code} after ${attempts} attempts ${first.details || ''}`;
    const bad = destinationMismatch(target, first.response);
    if (bad) return 'call 1: ' + bad;
    const second = await rc(DESTINATION, target);
    if (second.code !== 'OK') return `call 2 answered ${second.code} ${second.details || ''}`;
    const same = JSON.stringify(sorted(second.response)) === JSON.stringify(sorted(first.response));
    return same ? null : 'the destination changed between calls: ' + JSON.stringify(first.response) + ' then ' + JSON.stringify(second.response);
  });
}
const sorted = (v) => (v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);

async function healthCases() {
  await steps(vol('vol-10'), 'vol-10', 'EnableVolumeReplication', 'PromoteVolume');
  await check('GetVolumeReplicationInfo vol-10 (replicating, primary): status set and within the enum', async () => {
    const out = await rc('GetVolumeReplicationInfo', vol('vol-10'));
    if (out.code !== 'OK') return `got ${out.code} ${out.details || ''}`;
    if (args.verbose) console.log(`     status ${out.response.status} ${JSON.stringify(out.response.status_message)}`);
    return statusMismatch(out.response);
  });
  await restore(vol('vol-10'), 'vol-10');
  for (const [flag, wanted] of [['degraded-volume', 'DEGRADED'], ['error-volume', 'ERROR']]) {
    const id = args[flag];
    if (!id) continue;
    await steps(vol(id), id, 'EnableVolumeReplication', 'PromoteVolume');
    await check(`GetVolumeReplicationInfo ${id} (--${flag}): status ${wanted}`, async () => {
      const out = await rc('GetVolumeReplicationInfo', vol(id));
      if (out.code !== 'OK') return `got ${out.code} ${out.details || ''}`;
      if (args.verbose) console.log(`     status ${out.response.status} ${JSON.stringify(out.response.status_message)}`);
      return out.response.status === wanted ? null : `status ${out.response.status}, expected ${wanted}`;
    });
    await restore(vol(id), id);
  }
}

async function destinationCases() {
  await steps(vol('vol-10'), 'vol-10', 'EnableVolumeReplication');
  await expectDestination(`GetReplicationDestinationInfo vol-10 right after EnableVolumeReplication: OK within ${destinationAttempts} attempts (UNAVAILABLE only as transient)`,
    vol('vol-10'), { shape: false });
  await expectDestination('GetReplicationDestinationInfo vol-10: a volume destination with a non-empty volume_id', vol('vol-10'));
  await steps(vol('vol-10'), 'vol-10', 'DisableVolumeReplication');
  await expect('GetReplicationDestinationInfo vol-10 after DisableVolumeReplication', 'FAILED_PRECONDITION', () => rc(DESTINATION, vol('vol-10')));

  const [group, groupMembers] = members.size ? [...members.entries()][0] : ['grp-0', null];
  await steps(grp(group), group, 'EnableVolumeReplication');
  await expectDestination(`GetReplicationDestinationInfo ${group}: a volumegroup destination with a non-empty volume_group_id and no empty member id`, grp(group));
  if (groupMembers) {
    await expectDestination(`GetReplicationDestinationInfo ${group}: member map given and complete for its members ${groupMembers.join(',')}`, grp(group), { extra: (r) => {
      const map = r.replication_destination.volumegroup.volume_ids || {};
      return Object.keys(map).length ? null : 'no member map, though the plugin was started with the members';
    } });
  }
  await steps(grp(group), group, 'DisableVolumeReplication');
}

async function identityCases() {
  if (args['skip-identity']) return;
  const out = await call(identityStub, 'GetCapabilities', {});
  await check('Identity GetCapabilities -> OK (every CSI-Addons driver MUST serve Identity)', async () => (out.code === 'OK' ? null : `got ${out.code} ${out.details || ''}`));
  if (out.code !== 'OK') return;
  const replication = out.response.capabilities.filter((c) => c.type === 'volume_replication').map((c) => c.volume_replication.type);
  await check('Identity GetCapabilities: volume_replication types within the enum', async () => {
    const odd = replication.filter((t) => typeof t !== 'string');
    return odd.length ? 'types outside UNKNOWN..GET_REPLICATION_DESTINATION_INFO: ' + odd.join(',') : null;
  });
  await check('Identity GetCapabilities: VOLUME_REPLICATION advertised', async () => (replication.includes('VOLUME_REPLICATION') ? null : 'advertised: ' + JSON.stringify(replication)));
  await check('Identity GetCapabilities: GET_REPLICATION_DESTINATION_INFO advertised (the plugin serves the seventh RPC)', async () =>
    (replication.includes('GET_REPLICATION_DESTINATION_INFO') ? null : 'advertised: ' + JSON.stringify(replication)));
}

async function requestForms() {
  if (upstream) {
    // upstream-2026 cannot express the deprecated volume_id (field 1 reserved) nor a volumesnapshot source.
    await expect('EnableVolumeReplication: parameters of 4000 bytes (within 4 KiB)', 'OK', () => rc('EnableVolumeReplication', vol('vol-4', { parameters: bigMap(4000) })));
    await restore(vol('vol-4'), 'vol-4');
    return;
  }
  const deprecated = { volume_id: 'vol-4', secrets };
  await check('deprecated volume_id alone: every RPC of the lifecycle -> OK', async () => {
    for (const rpc of ['EnableVolumeReplication', 'PromoteVolume', 'GetVolumeReplicationInfo', 'DemoteVolume', 'ResyncVolume', 'PromoteVolume', 'DisableVolumeReplication']) {
      const out = await rc(rpc, deprecated);
      if (out.code !== 'OK') return `${rpc} answered ${out.code} ${out.details || ''}`;
    }
    return null;
  });
  await expect('EnableVolumeReplication: volume_id agreeing with replication_source', 'OK', () => rc('EnableVolumeReplication', vol('vol-4', { volume_id: 'vol-4' })));
  await restore(vol('vol-4'), 'vol-4');
  await expect('EnableVolumeReplication: volume_id disagreeing with replication_source', 'INVALID_ARGUMENT', () => rc('EnableVolumeReplication', vol('vol-4', { volume_id: 'vol-5' })));
  await expect('EnableVolumeReplication: parameters of 4000 bytes (within 4 KiB)', 'OK', () => rc('EnableVolumeReplication', vol('vol-4', { parameters: bigMap(4000) })));
  await restore(vol('vol-4'), 'vol-4');
  await expect('EnableVolumeReplication: nonexistent volume snapshot', ['NOT_FOUND', 'INVALID_ARGUMENT'],
    () => rc('EnableVolumeReplication', { replication_source: { volumesnapshot: { volume_snapshot_id: 'interop-no-such-snapshot' } }, secrets }));
}

async function concurrency() {
  const sequence = ['EnableVolumeReplication', 'PromoteVolume', 'GetVolumeReplicationInfo'].concat(upstream ? [DESTINATION] : [], ['DemoteVolume', 'ResyncVolume', 'PromoteVolume', 'DisableVolumeReplication']);
  for (const rpc of sequence) {
    await check(`16 simultaneous ${rpc} on vol-5 -> only OK or ABORTED, at least one OK`, async () => {
      // Past the transient UNAVAILABLE of a fresh enable first: this case is about overlapping calls.
      if (rpc === DESTINATION) await destinationOnceAvailable(vol('vol-5'));
      const outs = await Promise.all(Array.from({ length: 16 }, () => rc(rpc, vol('vol-5'))));
      const codes = outs.map((o) => o.code);
      const other = codes.filter((c) => c !== 'OK' && c !== 'ABORTED');
      if (other.length) return 'unexpected codes ' + other.join(',');
      if (!codes.includes('OK')) return 'all 16 answered ABORTED';
      if (args.verbose) console.log(`     ${codes.filter((c) => c === 'OK').length} OK, ${codes.filter((c) => c === 'ABORTED').length} ABORTED`);
      return null;
    });
  }
  await check('16 simultaneous EnableVolumeReplication on 16 different volumes -> all OK (no ABORTED across sources)', async () => {
    const outs = await Promise.all(Array.from({ length: 16 }, (_, i) => rc('EnableVolumeReplication', vol('vol-' + i))));
    const bad = outs.map((o, i) => o.code === 'OK' ? null : `vol-${i}: ${o.code}`).filter(Boolean);
    await Promise.all(Array.from({ length: 16 }, (_, i) => rc('DisableVolumeReplication', vol('vol-' + i))));
    return bad.length ? bad.join(', ') : null;
  });
}

async function wireCases() {
  // Field 5 (replication_source), length-delimited, claims 100 bytes but carries one: not a valid message.
  const truncated = Buffer.from([0x2a, 0x64, 0x01]);
  const invalidTag = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
  for (const rpc of ['EnableVolumeReplication', 'GetVolumeReplicationInfo'].concat(upstream ? [DESTINATION] : [])) {
    await expect(`${rpc}: malformed request bytes (truncated field)`, 'INVALID_ARGUMENT', () => rawCall(`/replication.Controller/${rpc}`, truncated));
    await expect(`${rpc}: malformed request bytes (invalid tag)`, 'INVALID_ARGUMENT', () => rawCall(`/replication.Controller/${rpc}`, invalidTag));
  }
  await expect('the plugin still serves after malformed bytes: EnableVolumeReplication vol-6', 'OK', () => rc('EnableVolumeReplication', vol('vol-6')));
  await restore(vol('vol-6'), 'vol-6');
  await expect('unknown method /replication.Controller/FrobnicateVolume', 'UNIMPLEMENTED', () => rawCall('/replication.Controller/FrobnicateVolume', Buffer.alloc(0)));
  await expect('unknown service /replication.NoSuchService/Call', 'UNIMPLEMENTED', () => rawCall('/replication.NoSuchService/Call', Buffer.alloc(0)));
}

async function healerCases() {
  const path = '/var/lib/kubelet/pods/interop/volumes/vol-0/mount';
  const heal = (req) => call(node, 'NodeHealer', { secrets, ...req });
  await check('NodeHealer: existing volume -> OK, not abnormal, with a message', async () => {
    const out = await heal({ volume_id: 'vol-0', volume_path: path });
    if (out.code !== 'OK') return `got ${out.code} ${out.details || ''}`;
    if (out.response.abnormal) return 'abnormal';
    return out.response.message ? null : 'empty message (REQUIRED)';
  });
  await expect('NodeHealer: with staging path and a mount capability', 'OK', () => heal({ volume_id: 'vol-0', volume_path: path, staging_target_path: '/var/lib/kubelet/plugins/staging/vol-0',
    volume_capability: { mount: { fs_type: 'ext4' }, access_mode: { mode: 'SINGLE_NODE_WRITER' } } }));
  await expect('NodeHealer: with a block capability', 'OK', () => heal({ volume_id: 'vol-0', volume_path: path, volume_capability: { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } } }));
  await expect('NodeHealer: missing volume_id', 'INVALID_ARGUMENT', () => heal({ volume_path: path }));
  await expect('NodeHealer: missing volume_path', 'INVALID_ARGUMENT', () => heal({ volume_id: 'vol-0' }));
  await expect('NodeHealer: relative staging_target_path', 'INVALID_ARGUMENT', () => heal({ volume_id: 'vol-0', volume_path: path, staging_target_path: 'staging/vol-0' }));
  await expect('NodeHealer: nonexistent volume', 'NOT_FOUND', () => heal({ volume_id: 'interop-no-such-volume', volume_path: path }));
  await expect('NodeHealer: volume_id of 129 bytes', 'INVALID_ARGUMENT', () => heal({ volume_id: long(129), volume_path: path }));
  await expect('NodeHealer: volume_path of 4096 bytes (exempt from the 128-byte limit)', 'OK', () => heal({ volume_id: 'vol-0', volume_path: '/' + long(4095) }));
  await expect('NodeHealer: volume_context over 4 KiB', 'INVALID_ARGUMENT', () => heal({ volume_id: 'vol-0', volume_path: path, volume_context: bigMap(4200) }));
  if (Object.keys(secrets).length > 0) {
    const wrong = Object.fromEntries(Object.keys(secrets).map((k) => [k, 'interop-wrong-value']));
    await expect('NodeHealer: wrong secret values', 'UNAUTHENTICATED', () => call(node, 'NodeHealer', { volume_id: 'vol-0', volume_path: path, secrets: wrong }));
  }
  if (args['abnormal-volume']) {
    const id = args['abnormal-volume'];
    await check(`NodeHealer: ${id} marked abnormal -> OK, abnormal, with a message`, async () => {
      const out = await heal({ volume_id: id, volume_path: path });
      if (out.code !== 'OK') return `got ${out.code}`;
      return out.response.abnormal && out.response.message ? null : 'abnormal=' + out.response.abnormal + ' message=' + JSON.stringify(out.response.message);
    });
  }
}

async function main() {
  const reachable = await new Promise((resolve) => controller.waitForReady(Date.now() + 10000, (err) => resolve(!err)));
  if (!reachable) { console.error('cannot reach ' + args.endpoint); process.exit(2); }
  await errorRows();
  await preconditionRows();
  await lifecycle(vol('vol-3'), 'volume vol-3');
  for (let g = 0; g < groups; g++) await lifecycle(grp('grp-' + g), 'volume group grp-' + g);
  if (upstream) {
    await healthCases();
    await destinationCases();
    await identityCases();
  }
  await requestForms();
  await concurrency();
  await wireCases();
  if (args.healer) await healerCases();
  // Deliberately not the "N passed, N failed" shape: CI reads that shape as a test runner's summary.
  console.log(`client.js: ${passed + failures.length} cases, ${failures.length} mismatches against ${args.endpoint}`);
  controller.close(); node.close(); raw.close(); identityStub.close();
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => { console.error(e && e.stack || e); process.exit(2); });
