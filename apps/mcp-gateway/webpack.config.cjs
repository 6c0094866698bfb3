const { nodeAppConfig } = require('../../tools/webpack/node-app.cjs');

module.exports = nodeAppConfig(__dirname);
