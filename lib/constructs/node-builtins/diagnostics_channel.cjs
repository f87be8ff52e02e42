module.exports = process.getBuiltinModule('node:diagnostics_channel');
