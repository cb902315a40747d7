'use strict';
// Loads the peers' own .proto files (written from the seed documents, see proto/) at run time.
// Each spec revision is loaded separately: all four use the wire package `replication`.
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_DIR = path.join(__dirname, '..', 'proto');
const LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [PROTO_DIR] };

function load(file) {
  const definition = protoLoader.loadSync(path.join(PROTO_DIR, file), LOADER_OPTIONS);
  return { definition, package: grpc.loadPackageDefinition(definition) };
}

const cache = {};
function revision(name) {
  if (!cache[name]) {
    const file = { current: 'current/replication.proto', 'upstream-2026': 'upstream2026/replication.proto',
      'v0.1.3': 'v013/replication.proto', 'v0.1.0': 'v010/replication.proto', healer: 'healer/healer.proto',
      identity: 'upstream2026/identity/identity.proto', volumegroup: 'upstream2026/volumegroup/volumegroup.proto' }[name];
    if (!file) throw new Error('unknown proto set ' + name);
    cache[name] = load(file);
  }
  return cache[name];
}

module.exports = {
  grpc,
  current: () => revision('current'),
  upstream2026: () => revision('upstream-2026'),
  identity: () => revision('identity'),
  volumegroup: () => revision('volumegroup'),
  v013: () => revision('v0.1.3'),
  v010: () => revision('v0.1.0'),
  healer: () => revision('healer'),
};
