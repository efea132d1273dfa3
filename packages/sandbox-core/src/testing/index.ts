export * from './conformance/index.js';
export * from './fake-anthropic-server.js';
export * from './harness-suite.js';
