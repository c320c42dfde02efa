from threadlab.cli import main

raise SystemExit(main())
