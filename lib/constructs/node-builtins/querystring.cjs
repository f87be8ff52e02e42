module.exports = process.getBuiltinModule('node:querystring');
