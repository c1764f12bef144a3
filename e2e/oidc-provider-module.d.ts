// oidc-provider ships no type declarations; e2e/oidc-provider.ts types the few members it uses.
declare module 'oidc-provider' {
  const Provider: unknown;
  export default Provider;
}
