module.exports = process.getBuiltinModule('node:module');
