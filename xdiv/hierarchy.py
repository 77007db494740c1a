"""Intent hierarchies, public namespace: the model (:mod:`xdiv.core.hierarchy`) with the
readers and writers of hierarchy files (:mod:`xdiv.io.hierarchy`)."""

from .core.hierarchy import Kind, Scheme, flat_hierarchy, hierarchy_frame
from .io.hierarchy import (attach_hierarchy, extend_hierarchy, read_hierarchy,
                           read_hierarchy_file, write_hierarchy)

__all__ = ["Kind", "Scheme", "attach_hierarchy", "extend_hierarchy", "flat_hierarchy",
           "hierarchy_frame", "read_hierarchy", "read_hierarchy_file", "write_hierarchy"]
