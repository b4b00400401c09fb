# The package's sources: the work tree less what .gitignore keeps out of git (dependencies, data, build output),
# less the Nix and CI files (editing the module or the flake must not rebuild the package). Builtins only, so CI
# can evaluate it without nixpkgs: `.ci/run` copies the tree through it and compares with git.
{ root }:
let
  # matched against a path's last component, at any depth
  ignoredNames = [ "node_modules" ".data" "dist" ".bench" ".git" "result" ];
  # matched against the path from the root
  ignoredTopLevel = [ "tmp" "build" "nix" "flake.nix" "flake.lock" ".ci" ];
  rootString = toString root;
  relative = path: builtins.substring (builtins.stringLength rootString + 1) (-1) (toString path);
  matches = regex: s: builtins.match regex s != null;
  keep = path: type:
    let
      name = baseNameOf (toString path);
      rel = relative path;
    in
    !(builtins.elem name ignoredNames)
    && !(builtins.elem rel ignoredTopLevel)
    && !(matches "result-.*" name)
    && !(matches "\\.build-test-.*" name)
    && !(matches ".*\\.log" name);
in
builtins.path {
  path = root;
  name = "shoal-source";
  filter = keep;
}
