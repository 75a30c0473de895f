"""belote_env: the French card game Belote as a reinforcement-learning environment.

- ``belote_env.rules``: the rules core (standard library only);
- ``belote_env.load_variant``: variant files from ``configs/variants/``;
- ``belote_env.env`` / ``belote_env.raw_env``: the PettingZoo AEC environment
  (imported lazily, so the rules core never pulls in numpy or pettingzoo);
- ``belote_env.vector.VectorEnv``: N tables per step on the numba kernels of
  ``belote_env.fast`` (imported only there, so neither ``import belote_env``
  nor ``env()`` loads numba or compiles anything).
"""

__version__ = "0.1.0"


def __getattr__(name):
    if name in ("env", "raw_env"):
        from . import aec as _env_module

        return getattr(_env_module, name)
    if name in ("load_variant", "variant_names"):
        from . import variants

        return getattr(variants, name)
    raise AttributeError(f"module 'belote_env' has no attribute {name!r}")
