module.exports = process.getBuiltinModule('node:path');
