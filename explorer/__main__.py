"""`python -m explorer`: see explorer/launch.py."""
import sys

from explorer.launch import main

sys.exit(main())
