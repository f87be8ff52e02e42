export { setup as default } from './jest-global.mjs';
