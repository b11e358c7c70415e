// Bench (b′): preloaded (`--require`) into a steering server so that `sodium-native` does not
// load and the server signs its decisions with node:crypto (OpenSSL), as where libsodium is
// missing: the same server signing either way, in one run.
const Module = require('node:module');
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === 'sodium-native') throw new Error('sodium-native: left out by the bench');
  return load.call(this, request, ...rest);
};
