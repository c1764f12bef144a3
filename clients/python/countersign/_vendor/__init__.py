"""Third-party code shipped inside the package; see README.md beside this file."""
