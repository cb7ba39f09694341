"""Reports built from game records: the self-contained HTML tournament report and game viewer."""
