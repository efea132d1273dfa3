export * from './conformance.js';
export * from './fake-anthropic-server.js';
export * from './harness-suite.js';
