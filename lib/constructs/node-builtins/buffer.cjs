module.exports = process.getBuiltinModule('node:buffer');
