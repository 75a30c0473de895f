import sys

from agents.pretrained import main

sys.exit(main())
