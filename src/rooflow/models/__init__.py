"""FLOP/byte models: kernel families (``families.yaml``) and the safe formula compiler."""
