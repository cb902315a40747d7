#!/usr/bin/env node
'use strict';
// `npm test`: proves the peers against each other, bounded in time, on unix sockets under a temp dir.
//  1. the default mode is unchanged: client.js passes plugin.js (current revision, healer included);
//  2. client.js --upstream-2026 passes plugin.js --revision upstream-2026 (with transient UNAVAILABLE, members,
//     degraded/error volumes, different destination ids), and never sends the reserved field 1;
//  3. it fails each upstream-2026 defect of plugin.js with the named case;
//  4. faulty.js scripts the seventh RPC (UNAVAILABLE*2, then OK with the destination);
//  5. two sites with different ids walk a failover: A's destinations are B's ids, B refuses a promote without
//     force while A is primary or unreachable, accepts it once A is demoted, and force promotes regardless.
// Exit 1 on any failure. `node test/selfcheck.js SUBSTRING` runs only the checks whose name contains it.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { grpc, upstream2026 } = require('../lib/protos');

const ROOT = path.join(__dirname, '..');
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'volrep-interop-'));
const SECRET = ['--secret', 'user=admin'];
const START_TIMEOUT_MS = 10000;
const CLIENT_TIMEOUT_MS = 90000;
const only = process.argv[2];

// The fixture both sides are told about: plugin.js serves it, client.js checks the answers against it.
const FIXTURE = {
  plugin: ['--group-members', 'grp-0=vol-0,vol-1', '--destination-prefix', 'b-', '--degraded-volume', 'vol-7', '--error-volume', 'vol-8',
    '--destination-unavailable-calls', '2', '--latency', '5'],
  client: ['--group-members', 'grp-0=vol-0,vol-1', '--degraded-volume', 'vol-7', '--error-volume', 'vol-8', '--destination-attempts', '6'],
};

// Each upstream-2026 defect of plugin.js and the client.js case (a substring of its name) that must fail on it.
const CAUGHT_BY = {
  'status-missing': 'GetVolumeReplicationInfo vol-10 (replicating, primary): status set and within the enum',
  'status-out-of-range': 'GetVolumeReplicationInfo vol-10 (replicating, primary): status set and within the enum',
  'degraded-as-healthy': 'GetVolumeReplicationInfo vol-7 (--degraded-volume): status DEGRADED',
  'destination-missing': 'GetReplicationDestinationInfo vol-10: a volume destination with a non-empty volume_id',
  'destination-wrong-kind': 'GetReplicationDestinationInfo vol-10: a volume destination with a non-empty volume_id',
  'destination-empty-id': 'GetReplicationDestinationInfo vol-10: a volume destination with a non-empty volume_id',
  'partial-member-map': 'GetReplicationDestinationInfo grp-0: member map given and complete for its members vol-0,vol-1',
  'member-map-empty-value': 'GetReplicationDestinationInfo grp-0: a volumegroup destination with a non-empty volume_group_id and no empty member id',
  'destination-before-enable': 'GetReplicationDestinationInfo: volume with replication disabled -> FAILED_PRECONDITION',
  'destination-after-disable': 'GetReplicationDestinationInfo vol-10 after DisableVolumeReplication -> FAILED_PRECONDITION',
  'destination-unavailable-forever': 'GetReplicationDestinationInfo vol-10 right after EnableVolumeReplication: OK within',
  'destination-code-outside-table': 'GetReplicationDestinationInfo: volume with replication disabled -> FAILED_PRECONDITION',
  'no-destination-capability': 'Identity GetCapabilities: GET_REPLICATION_DESTINATION_INFO advertised',
};

let checks = 0;
const failures = [];
const children = new Set();
let notes = [];
const note = (text) => notes.push(text);

/** One check: `fn` resolves null when it held, else the mismatch text; its notes print under its line. */
async function selfcheck(name, fn) {
  if (only && !name.includes(only)) return;
  checks++;
  notes = [];
  let mismatch;
  try { mismatch = await fn(); } catch (e) { mismatch = 'threw ' + (e && e.stack || e); }
  if (mismatch) { failures.push(name); console.log(`FAIL ${name}: ${mismatch}`); } else console.log(`ok   ${name}`);
  for (const text of notes) console.log('     ' + text);
}

/** Starts a peer on DIR/<name>.sock and resolves once it prints "listening on". */
function start(script, name, args) {
  const socket = path.join(DIR, name + '.sock');
  const child = spawn(process.execPath, [path.join(ROOT, script), '--listen', 'unix://' + socket, '--quiet', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} ${name} did not listen within ${START_TIMEOUT_MS} ms: ${output}`)), START_TIMEOUT_MS);
    const onData = (d) => {
      output += d;
      if (output.includes('listening on')) { clearTimeout(timer); resolve({ child, endpoint: 'unix://' + socket }); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => { output += d; });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`${script} ${name} exited ${code}: ${output}`)); });
  });
}

function stop(peer) {
  return new Promise((resolve) => {
    if (peer.child.exitCode !== null || peer.child.signalCode !== null) { resolve(); return; }
    peer.child.on('exit', resolve);
    peer.child.kill('SIGTERM');
  });
}

/** Runs client.js to its end (killed after CLIENT_TIMEOUT_MS); resolves { code, out }. */
function client(endpoint, args) {
  const child = spawn(process.execPath, [path.join(ROOT, 'client.js'), '--endpoint', endpoint, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const timer = setTimeout(() => child.kill('SIGKILL'), CLIENT_TIMEOUT_MS);
  return new Promise((resolve) => child.on('exit', (code, signal) => {
    clearTimeout(timer);
    children.delete(child);
    resolve({ code: signal ? 'killed by ' + signal : code, out });
  }));
}
const failLines = (out) => out.split('\n').filter((l) => l.startsWith('FAIL '));

/** One upstream-2026 call; resolves { code, response }. */
function call(endpoint, rpc, request) {
  const stub = new (upstream2026().package.replication.Controller)(endpoint, grpc.credentials.createInsecure());
  return new Promise((resolve) => stub[rpc](request, { deadline: Date.now() + 5000 }, (err, response) => {
    stub.close();
    resolve(err ? { code: Object.keys(grpc.status).find((k) => grpc.status[k] === err.code), details: err.details } : { code: 'OK', response });
  }));
}
const volume = (id, extra = {}) => ({ replication_source: { volume: { volume_id: id } }, secrets: { user: 'admin' }, ...extra });
const group = (id) => ({ replication_source: { volumegroup: { volume_group_id: id } }, secrets: { user: 'admin' } });

async function main() {
  await selfcheck('default mode unchanged: client.js passes plugin.js (current revision, --healer)', async () => {
    const plugin = await start('plugin.js', 'current', [...SECRET, '--latency', '5', '--abnormal-volume', 'vol-9']);
    const run = await client(plugin.endpoint, [...SECRET, '--healer', '--abnormal-volume', 'vol-9']);
    await stop(plugin);
    return run.code === 0 ? null : `exit ${run.code}\n${failLines(run.out).join('\n')}`;
  });

  await selfcheck('client.js --upstream-2026 passes plugin.js --revision upstream-2026; field 1 never sent; UNAVAILABLE retried', async () => {
    const calls = path.join(DIR, 'upstream-calls.json');
    const plugin = await start('plugin.js', 'upstream', [...SECRET, '--revision', 'upstream-2026', ...FIXTURE.plugin, '--calls-file', calls]);
    const run = await client(plugin.endpoint, [...SECRET, '--upstream-2026', '--healer', ...FIXTURE.client]);
    await stop(plugin);
    if (run.code !== 0) return `exit ${run.code}\n${failLines(run.out).join('\n')}`;
    const log = JSON.parse(fs.readFileSync(calls, 'utf8')).calls;
    const withField1 = log.filter((c) => c.reservedField1);
    if (withField1.length) return `${withField1.length} requests carried the reserved field 1`;
    const unavailable = log.filter((c) => c.rpc === 'GetReplicationDestinationInfo' && c.code === 'UNAVAILABLE').length;
    if (unavailable === 0) return 'no transient UNAVAILABLE was exercised';
    note(`${run.out.trim().split('\n').pop().replace(/ against .*/, '')}; ${unavailable} transient UNAVAILABLE answers retried`);
    return null;
  });

  for (const [defect, caseName] of Object.entries(CAUGHT_BY)) {
    await selfcheck(`client.js --upstream-2026 fails defect ${defect} with "${caseName}"`, async () => {
      const plugin = await start('plugin.js', defect, [...SECRET, '--revision', 'upstream-2026', ...FIXTURE.plugin, '--defect', defect]);
      const run = await client(plugin.endpoint, [...SECRET, '--upstream-2026', ...FIXTURE.client]);
      await stop(plugin);
      const failed = failLines(run.out);
      if (run.code !== 1) return `exit ${run.code}, expected 1\n${failed.join('\n')}`;
      if (!failed.some((l) => l.includes(caseName))) return 'the named case passed; failed instead:\n' + failed.join('\n');
      note(`${failed.length} case(s) failed, the named one among them`);
      return null;
    });
  }

  await selfcheck('faulty.js --revision upstream-2026: GetReplicationDestinationInfo=UNAVAILABLE*2, then OK with the destination', async () => {
    const faulty = await start('faulty.js', 'faulty', ['--revision', 'upstream-2026', '--destination-prefix', 'b-', '--script', 'GetReplicationDestinationInfo=UNAVAILABLE*2']);
    const codes = [];
    let last;
    for (let i = 0; i < 3; i++) { last = await call(faulty.endpoint, 'GetReplicationDestinationInfo', volume('vol-0')); codes.push(last.code); }
    const info = await call(faulty.endpoint, 'GetVolumeReplicationInfo', volume('vol-0'));
    await stop(faulty);
    if (codes.join() !== 'UNAVAILABLE,UNAVAILABLE,OK') return 'codes ' + codes.join();
    const id = last.response.replication_destination.volume && last.response.replication_destination.volume.volume_id;
    if (id !== 'b-vol-0') return 'destination ' + JSON.stringify(last.response);
    return info.code === 'OK' && info.response.status === 'HEALTHY' ? null : 'info ' + JSON.stringify(info);
  });

  await selfcheck('two sites with different ids: destinations, peer check before a promote without force, force when A is gone', async () => {
    const a = path.join(DIR, 'site-a.sock');
    const b = path.join(DIR, 'site-b.sock');
    const siteB = await start('plugin.js', 'site-b', [...SECRET, '--revision', 'upstream-2026', '--name', 'site-b.interop.volrep.io',
      '--volume-prefix', 'b-vol-', '--group-prefix', 'b-grp-', '--start-as', 'secondary', '--destination-strip-prefix', 'b-',
      '--group-members', 'b-grp-0=b-vol-0,b-vol-1', '--peer', 'unix://' + a]);
    const siteA = await start('plugin.js', 'site-a', [...SECRET, '--revision', 'upstream-2026', '--name', 'site-a.interop.volrep.io',
      '--start-as', 'primary', '--destination-prefix', 'b-', '--group-members', 'grp-0=vol-0,vol-1', '--peer', 'unix://' + b]);
    const A = siteA.endpoint;
    const B = siteB.endpoint;
    const steps = [];
    const expect = async (label, out, code, test) => {
      steps.push(label);
      if (out.code !== code) throw new Error(`${label}: ${out.code} ${out.details || ''}, expected ${code}`);
      if (test && !test(out.response)) throw new Error(`${label}: ${JSON.stringify(out.response)}`);
    };
    try {
      await expect('A destination vol-0', await call(A, 'GetReplicationDestinationInfo', volume('vol-0')), 'OK', (r) => r.replication_destination.volume.volume_id === 'b-vol-0');
      await expect('A destination grp-0', await call(A, 'GetReplicationDestinationInfo', group('grp-0')), 'OK', (r) => {
        const g = r.replication_destination.volumegroup;
        return g.volume_group_id === 'b-grp-0' && JSON.stringify(g.volume_ids) === JSON.stringify({ 'vol-0': 'b-vol-0', 'vol-1': 'b-vol-1' });
      });
      await expect('B destination b-vol-0 (failback)', await call(B, 'GetReplicationDestinationInfo', volume('b-vol-0')), 'OK', (r) => r.replication_destination.volume.volume_id === 'vol-0');
      await expect('B promote b-vol-0 while A is primary', await call(B, 'PromoteVolume', volume('b-vol-0')), 'FAILED_PRECONDITION');
      await expect('A demote vol-0', await call(A, 'DemoteVolume', volume('vol-0')), 'OK');
      await expect('B promote b-vol-0 after A demoted', await call(B, 'PromoteVolume', volume('b-vol-0')), 'OK');
      await expect('B promote b-vol-0 again (a re-run)', await call(B, 'PromoteVolume', volume('b-vol-0')), 'OK');
      await expect('B info b-vol-0', await call(B, 'GetVolumeReplicationInfo', volume('b-vol-0')), 'OK', (r) => r.status === 'HEALTHY');
      await expect('A demote grp-0', await call(A, 'DemoteVolume', group('grp-0')), 'OK');
      await expect('B promote b-grp-0', await call(B, 'PromoteVolume', group('b-grp-0')), 'OK');
      await stop(siteA);
      await expect('B promote b-vol-1 with A gone, no force', await call(B, 'PromoteVolume', volume('b-vol-1')), 'FAILED_PRECONDITION');
      await expect('B promote b-vol-1 with A gone, force', await call(B, 'PromoteVolume', volume('b-vol-1', { force: true })), 'OK');
    } finally {
      await stop(siteA);
      await stop(siteB);
    }
    note(`${steps.length} steps: ${steps.join('; ')}`);
    return null;
  });

  console.log(`selfcheck: ${checks} checks, ${failures.length} failures`);
  return failures.length ? 1 : 0;
}

function cleanUp() {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(DIR, { recursive: true, force: true });
}

// The whole run is bounded: a hung peer cannot keep it alive.
const overall = setTimeout(() => { console.log('selfcheck: over 10 minutes, stopped'); cleanUp(); process.exit(1); }, 600000);
main().then((code) => { clearTimeout(overall); cleanUp(); process.exit(code); },
  (e) => { console.error(e && e.stack || e); cleanUp(); process.exit(2); });
