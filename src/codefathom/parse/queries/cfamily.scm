; C and C++ share their graph query (cfamily-graph.scm); their definitions come from c.scm and cpp.scm.
