"""`python -m explorer`: see explorer/ui/launch.py."""
import sys

from explorer.ui.launch import main

sys.exit(main())
