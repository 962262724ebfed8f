"""Analyses over the IR: activity, scalar facts, purity.  They read IR and never change it."""
