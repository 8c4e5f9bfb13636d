"""`python -m cms` is the same as the `cms` console script."""

from cms.entry import main

main()
