export { default } from '@kb/eslint-config';
