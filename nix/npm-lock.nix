# package-lock.json with every registry package pointing at a file Nix fetched, for an offline `npm ci`.
#
# The lock carries each package's `integrity` but not its `resolved` URL (npm is configured with
# omit-lockfile-registry-resolved), so the URL is the registry's tarball address for the package's name and
# version: https://registry.npmjs.org/<name>/-/<name without scope>-<version>.tgz. The name is the lock key's part
# after its last `node_modules/` (or the entry's `name`, for an alias). Workspace links (`link: true`) and the
# workspace entries themselves stay as they are. Builtins only, so CI can evaluate it without nixpkgs.
#
# fetch: { name, url, hash } -> path (pkgs.fetchurl in the flake; a local file in a test)
{ lockFile, fetch }:
let
  lock = builtins.fromJSON (builtins.readFile lockFile);
  lastOf = list: builtins.elemAt list (builtins.length list - 1);
  packageName = key: entry: entry.name or (lastOf (builtins.split "node_modules/" key));
  unscoped = name: lastOf (builtins.split "/" name);
  tarballUrl = name: version: "https://registry.npmjs.org/${name}/-/${unscoped name}-${version}.tgz";
  fromRegistry = key: entry:
    builtins.substring 0 13 key == "node_modules/" && !(entry.link or false) && entry ? version && entry ? integrity;
  pin = key: entry:
    let
      name = packageName key entry;
      url = entry.resolved or (tarballUrl name entry.version);
      # a store name may not contain '@' or '/'
      storeName = builtins.replaceStrings [ "@" "/" ] [ "" "-" ] "${name}-${entry.version}.tgz";
    in
    entry // { resolved = "file:${fetch { name = storeName; inherit url; hash = entry.integrity; }}"; };
in
lock // {
  packages = builtins.mapAttrs (key: entry: if fromRegistry key entry then pin key entry else entry) lock.packages;
}
