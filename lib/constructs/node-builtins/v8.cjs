module.exports = process.getBuiltinModule('node:v8');
