export { teardown as default } from './jest-global.mjs';
