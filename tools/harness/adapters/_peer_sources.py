"""_peer_sources.py — an outside peer's pinned sources, imported module by module.

What it is for: the peer adapters (_megatron_common.py, _vescale_common.py) run a framework's
own files, installed by tools/harness/setup_venv.sh as sources under VENV/peers/NAME-VERSION
(tools/harness/peers.txt pins each by sha256).  Importing such a framework as a package runs
its __init__, which imports the whole library (CUDA extensions, grpc, ...) that a CPU venv
lacks.  `load()` registers the parent packages as empty modules whose __path__ is the installed
tree, so exactly the named modules and what they import load, unmodified.

How it is tested: through its two users, tools/harness/tests/test_megatron_peer.py and
test_vescale_peer.py (each loads its peer and checks the modules come from the install).
"""

import importlib
import os
import sys
import types


class Peer:
    """One pinned peer: its display name, version, pip distribution name (as its dist-info
    spells it), the environment variable naming another install, and the parent packages to
    register without running their __init__."""

    def __init__(self, title, name, version, dist, env, parents):
        self.title, self.name, self.version = title, name, version
        self.dist, self.env, self.parents = dist, env, parents
        self._modules = {}

    def install_dir(self):
        """Where setup_venv.sh installs it (the environment variable wins)."""
        return os.environ.get(self.env) or \
            os.path.join(sys.prefix, "peers", "%s-%s" % (self.name, self.version))

    def installed_version(self, root):
        """The version its dist-info records, or None."""
        meta = os.path.join(root, "%s-%s.dist-info" % (self.dist, self.version), "METADATA")
        try:
            with open(meta) as fh:
                for line in fh:
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            return None
        return None

    def load(self, *modules):
        """The named modules of the pinned install, in order; ImportError naming the install
        step when it is not there, or when a parent package came from elsewhere."""
        if all(m in self._modules for m in modules):
            return tuple(self._modules[m] for m in modules)
        root = self.install_dir()
        have = self.installed_version(root)
        if have != self.version:
            raise ImportError("%s %s not installed at %s (found: %s); "
                              "tools/harness/setup_venv.sh installs it (or set %s)"
                              % (self.title, self.version, root, have or "nothing", self.env))
        for name in self.parents:
            have_mod = sys.modules.get(name)
            path = os.path.join(root, *name.split("."))
            if have_mod is not None and list(getattr(have_mod, "__path__", [])) != [path]:
                raise ImportError("a module %s from elsewhere is already imported (%s)"
                                  % (name, getattr(have_mod, "__file__", have_mod)))
            if have_mod is None:
                m = types.ModuleType(name)
                m.__path__ = [path]   # a package whose __init__ is not run
                sys.modules[name] = m
        for m in modules:
            self._modules[m] = importlib.import_module(m)
        return tuple(self._modules[m] for m in modules)
