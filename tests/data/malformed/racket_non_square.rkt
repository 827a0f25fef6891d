'("cymK" "KyCy" "ymkc" "mkYc"
  "MycK" "mCkY" "cmKY" "KYmC")
