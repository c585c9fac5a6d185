from fracas.cli import main

main()
