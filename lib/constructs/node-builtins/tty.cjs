module.exports = process.getBuiltinModule('node:tty');
