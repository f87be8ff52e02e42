module.exports = process.getBuiltinModule('node:assert');
