/**
 * The disposable-domain and role-address lists, from two maintained packages (docs/email-status.md names them
 * and their versions). Imported on first use, not at module load: the disposable list is ~170 KB of JSON, which
 * a function pays for only when it classifies an address (lib/constructs/service-function.ts, LAZY_PACKAGES).
 */
export interface AddressLists {
  isDisposableDomain(domain: string): boolean;
  isRoleLocalPart(local: string): boolean;
}

let loaded: Promise<AddressLists> | undefined;

async function load(): Promise<AddressLists> {
  const [disposable, roles] = await Promise.all([import('disposable-email-domains-js'), import('role-based-email-addresses')]);
  const domains = disposable.disposableEmailBlocklistSet();
  const roleNames = new Set<string>(roles.default.map((r) => r.toLowerCase()));
  return {
    // A subdomain of a throwaway domain is as throwaway as the domain itself.
    isDisposableDomain: (domain) => {
      const labels = domain.toLowerCase().split('.');
      for (let i = 0; i < labels.length - 1; i++) if (domains.has(labels.slice(i).join('.'))) return true;
      return false;
    },
    // `sales+eu@` and `sales@` are the same role.
    isRoleLocalPart: (local) => roleNames.has(local.toLowerCase().split('+')[0]!),
  };
}

export function addressLists(): Promise<AddressLists> {
  loaded ??= load();
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}
