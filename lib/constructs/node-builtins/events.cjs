module.exports = process.getBuiltinModule('node:events');
