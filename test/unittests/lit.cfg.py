# Runs the GoogleTest binary as a lit suite, one lit test per TEST().
import os
import lit.formats

config.name = "TDSL-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.tdsl_obj_root, "test", "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
lit_config.load_config(config, os.path.join(config.tdsl_src_root, "test", "lit.sanitizers.py"))
