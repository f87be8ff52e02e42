/** The package ships no types: its main export is the list of role local parts (`info`, `sales`…). */
declare module 'role-based-email-addresses' {
  const roles: string[];
  export default roles;
}
