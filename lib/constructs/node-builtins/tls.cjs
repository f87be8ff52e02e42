module.exports = process.getBuiltinModule('node:tls');
